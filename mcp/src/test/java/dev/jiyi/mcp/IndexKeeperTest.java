package dev.jiyi.mcp;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.Settings;
import dev.jiyi.engine.Output;
import dev.jiyi.lucene.LuceneBackend;

import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IndexKeeper} on a real authority and a real Lucene index: when it applies and commits, what
 * it does on its own for another connection's writes, and what it leaves behind when the server
 * closes. The backend records each keep-up it is asked for and passes it on to the real one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IndexKeeperTest {

    private static final Scope SCOPE = new Scope("小明", "日记");
    private static final Instant SAID = Instant.parse("2024-05-01T02:00:00Z");

    @TempDir
    Path home;

    private Authority authority;
    private LuceneBackend lucene;
    private Recording recording;
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final StringWriter notices = new StringWriter();
    private IndexKeeper keeper;
    private long openedAt;

    @BeforeEach
    void open() {
        authority = Authority.open(home.resolve("jiyi.db"), List.of());
        lucene = new LuceneBackend(home, Settings.NONE);
        ChineseTokens.warmUp();
        say(authority, "warm", "预热 warm-up"); // the first flush's class loading and JIT, before any timing
        lucene.index().catchUp(authority); // opened and committed, as a server's warm-up leaves it
        openedAt = System.nanoTime();
        recording = new Recording(lucene);
    }

    @AfterEach
    void close() {
        if (keeper != null) { // as the server closes it
            keeper.closing();
            gate.writeLock().lock();
            keeper.close();
        }
        lucene.close();
        authority.close();
    }

    private IndexKeeper keeper(Duration quiet, Duration look) {
        PrintWriter out = new PrintWriter(notices, true);
        keeper = new IndexKeeper(authority, () -> recording, List::of, gate.readLock(), new Output(out, out, false),
                quiet, look);
        return keeper;
    }

    @Test
    @DisplayName("L2 writes told in a burst are applied at once (searchable, not committed) and committed once, a quiet interval after the last (Chinese, English, mixed)")
    void burstAppliedAtOnceCommittedOnce() throws Exception {
        IndexKeeper k = keeper(Duration.ofSeconds(2), Duration.ZERO);
        String[] texts = {"我下周去杭州看西湖", "I am learning Spanish for a trip to Madrid", "周末的 pottery class 在望京",
                "周六学游泳 swimming lessons", "晚上练钢琴"};
        long lastTold = 0;
        for (int i = 0; i < texts.length; i++) {
            say(authority, "b" + i, texts[i]);
            k.wrote();
            lastTold = System.nanoTime();
            if (i == 0) {
                await(() -> lucene.index().status().applied() >= head(), "the first write applied");
                if (System.nanoTime() - openedAt < TimeUnit.SECONDS.toNanos(8)) { // (the index's own rule commits at 10 s)
                    assertThat(committedSeq()).as("applied, not committed: the last commit is recent").isLessThan(head());
                }
            }
        }
        await(() -> recording.durable.size() == 1, "one commit");
        Thread.sleep(2_500);
        assertThat(recording.durable).as("one commit for the burst").hasSize(1);
        assertThat(recording.durable.getFirst() - lastTold).as("after the quiet interval")
                .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(recording.applies).as("applies coalesce, none after the commit").hasSizeBetween(1, texts.length)
                .allMatch(t -> t < recording.durable.getFirst());
        assertThat(committedSeq()).isEqualTo(head());
        assertThat(notices.toString()).isEmpty();
    }

    @Test
    @DisplayName("L2 another connection's write (as another process's) is found by the look and committed; the keeper's own writes bring no second keep-up")
    void looksForOtherWritesOnly() throws Exception {
        IndexKeeper k = keeper(Duration.ofMillis(200), Duration.ofMillis(100));
        say(authority, "own", "我自己写的一轮 a turn of this server's");
        k.wrote();
        await(() -> recording.durable.size() == 1, "the own write committed");
        k.start();
        Thread.sleep(700);
        assertThat(recording.applies.size() + recording.durable.size())
                .as("one apply and one commit; the looks since found the log where the index is").isEqualTo(2);
        assertThat(committedSeq()).isEqualTo(head());

        try (Authority other = Authority.open(home.resolve("jiyi.db"), List.of())) {
            say(other, "hook", "捕获钩子写的一轮 a turn the capture hook wrote");
        }
        await(() -> committedSeq() == head(), "the other connection's write committed");
        assertThat(recording.durable).hasSize(2);
    }

    @Test
    @DisplayName("D1 L4 a deletion whose keep-up has not run when the server closes is applied, purged from the files and committed by close")
    void closeAppliesWhatIsLeft() throws Exception {
        IndexKeeper k = keeper(Duration.ofSeconds(60), Duration.ZERO);
        say(authority, "secret", "我的储物柜暗号是 qorvexite locker code");
        say(authority, "kept", "我下周去杭州看西湖 West Lake");
        lucene.index().catchUp(authority);
        Path dir = lucene.index().directory().orElseThrow();
        assertThat(FileBytes.filesContaining(dir, "orvexit")).as("the check can see the term").isNotEmpty();

        authority.deleteEvent(SCOPE, "secret");
        k.closing();
        k.wrote(); // a call that ended as closing began: nothing starts for it now
        Thread.sleep(300);
        assertThat(recording.applies).as("nothing starts once closing").isEmpty();
        gate.writeLock().lock();
        k.close();
        keeper = null;
        assertThat(FileBytes.filesContaining(home.resolve("lucene"), "orvexit")).as("no residue").isEmpty();
        assertThat(committedSeq()).isEqualTo(head());
        assertThat(recording.durable).as("close's own keep-up").hasSize(1);
    }

    // ------------------------------------------------------------------ helpers

    private static void say(Authority a, String id, String text) {
        a.submitEvent(new EventSubmission(id, SCOPE, Role.USER, text, "keeper-test", Category.CONVERSATION, "s1", SAID));
    }

    private long head() {
        return authority.read(Snapshot::changeLogHead);
    }

    /** The change-log sequence of the index's last commit, as a new process finds it. */
    private long committedSeq() {
        try (FSDirectory d = FSDirectory.open(lucene.index().directory().orElseThrow())) {
            return Long.parseLong(SegmentInfos.readLatestCommit(d).getUserData().get("jiyi.seq"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not reached in 30 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The real backend, with the time of each keep-up it was asked for (applies and commits apart). */
    private static final class Recording implements Backend {

        private final Backend real;
        final List<Long> applies = new CopyOnWriteArrayList<>();
        final List<Long> durable = new CopyOnWriteArrayList<>();

        Recording(Backend real) {
            this.real = real;
        }

        @Override
        public long keepUp(Authority authority, boolean commit) {
            (commit ? durable : applies).add(System.nanoTime());
            return real.keepUp(authority, commit);
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public RecallIndex recallIndex() {
            return real.recallIndex();
        }

        @Override
        public Optional<String> folder() {
            return real.folder();
        }

        @Override
        public boolean built() {
            return real.built();
        }

        @Override
        public Rebuilt rebuild(Authority authority, LongConsumer fed) {
            return real.rebuild(authority, fed);
        }

        @Override
        public Optional<Health> health(Authority authority, TableCounts counts) {
            return real.health(authority, counts);
        }
    }
}
