package dev.jiyi.engine;

import dev.jiyi.engine.Progress.Mode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Progress on a fake clock: when it prints, what it prints, and that counting is exact across threads. */
class ProgressTest {

    private static final String NL = System.lineSeparator();

    /** A clock the test moves by hand. */
    private final AtomicLong nanos = new AtomicLong();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintWriter out = new PrintWriter(new OutputStreamWriter(bytes, StandardCharsets.UTF_8), true);

    private Progress progress(long total, Mode mode, Duration interval) {
        return new Progress("work", total, mode, out, nanos::get, interval);
    }

    private void at(Duration t) {
        nanos.set(t.toNanos());
    }

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private List<String> lines() {
        return printed().lines().toList();
    }

    @Test
    @DisplayName("lines mode: a line at 5 s, none until 10 s, the next at 10 s, and the final line on close")
    void linesEveryFiveSeconds() {
        Progress p = progress(10_000, Mode.LINES, Duration.ofSeconds(5));
        for (int ms = 1; ms < 5_000; ms++) {
            at(Duration.ofMillis(ms));
            p.advance();
        }
        assertThat(printed()).as("nothing before the first interval").isEmpty();

        at(Duration.ofSeconds(5));
        p.advance();
        assertThat(lines()).containsExactly("work: 5,000/10,000 (50%), 1,000/s, ETA 0:05");

        for (int ms = 5_001; ms < 10_000; ms += 7) {
            at(Duration.ofMillis(ms));
            p.advance();
        }
        assertThat(lines()).as("not again before 10 s").hasSize(1);

        at(Duration.ofSeconds(10));
        p.advance();
        assertThat(lines()).hasSize(2).last().isEqualTo("work: 5,716/10,000 (57%), 572/s, ETA 0:08");

        p.advance(10_000 - p.count());
        at(Duration.ofMillis(12_300));
        p.close();
        assertThat(lines()).hasSize(3).last().isEqualTo("work: 10,000 done in 12.3 s, 813/s");
    }

    @Test
    @DisplayName("terminal mode redraws in place with \\r at most once per interval and ends with a newline on close")
    void terminalRedraws() {
        Progress p = progress(1_000, Mode.TERMINAL, Duration.ofMillis(100));
        assertThat(printed()).as("drawn at once").isEqualTo("\rwork [....................]   0% 0/1,000");

        for (int ms = 1; ms <= 1_000; ms++) {
            at(Duration.ofMillis(ms));
            p.advance();
        }
        String drawing = printed();
        assertThat(drawing).doesNotContain("\n");
        assertThat(drawing.chars().filter(c -> c == '\r').count())
                .as("the first draw, then at 100, 200, ... 1,000 ms").isEqualTo(11);
        assertThat(drawing).contains("\rwork [##########..........]  50% 500/1,000  1,000/s  ETA 0:01");

        at(Duration.ofMillis(1_050));
        p.close();
        String all = printed();
        assertThat(all).endsWith(NL).startsWith(drawing);
        String last = all.substring(all.lastIndexOf('\r') + 1, all.length() - NL.length());
        assertThat(last).isEqualTo("work [####################] 100% 1,000/1,000  952/s  done in 1.1 s");
    }

    @Test
    @DisplayName("terminal mode blanks what a longer earlier line leaves")
    void terminalBlanksLeftovers() {
        Progress p = progress(0, Mode.TERMINAL, Duration.ofMillis(100));
        at(Duration.ofMillis(100));
        p.advance(12_345_678);
        at(Duration.ofSeconds(1_000));
        p.advance(0);
        String[] draws = printed().split("\r", -1);
        assertThat(draws).hasSize(4);
        assertThat(draws[2]).isEqualTo("work 12,345,678  123,456,780/s");
        assertThat(draws[3]).isEqualTo("work 12,345,678  12,346/s" + " ".repeat(5));
    }

    @Test
    @DisplayName("quiet prints nothing at all, whatever happens")
    void quietPrintsNothing() {
        Progress p = progress(10, Mode.OFF, Duration.ofMillis(1));
        for (int ms = 1; ms <= 100; ms++) {
            at(Duration.ofMillis(ms));
            p.advance();
        }
        p.close();
        assertThat(p.count()).isEqualTo(100);
        assertThat(printed()).isEmpty();
        assertThat(Progress.stderrMode(true)).isEqualTo(Mode.OFF);
    }

    @Test
    @DisplayName("an unknown total shows counts and rate, and no bar, percentage or ETA")
    void unknownTotal() {
        Progress lines = progress(0, Mode.LINES, Duration.ofSeconds(5));
        at(Duration.ofSeconds(5));
        lines.advance(4_500);
        at(Duration.ofSeconds(8));
        lines.close();
        assertThat(lines()).containsExactly("work: 4,500, 900/s", "work: 4,500 done in 8.0 s, 563/s");

        bytes.reset();
        at(Duration.ZERO);
        Progress terminal = progress(-1, Mode.TERMINAL, Duration.ofMillis(100));
        at(Duration.ofSeconds(2));
        terminal.advance(5);
        assertThat(printed()).isEqualTo("\rwork 0\rwork 5  2.5/s");
        assertThat(printed()).doesNotContain("ETA", "[", "%");
    }

    @Test
    @DisplayName("ETA: the remaining count at the mean rate, rounded up, as m:ss or h:mm:ss")
    void etaArithmetic() {
        long second = TimeUnit.SECONDS.toNanos(1);
        assertThat(Progress.etaSeconds(4_500, 10_000, 10 * second)).as("5,500 left at 450/s = 12.2 s")
                .isEqualTo(13);
        assertThat(Progress.etaSeconds(1, 3_601, second)).isEqualTo(3_600);
        assertThat(Progress.etaSeconds(1, 1_000_000_000_000L, second)).as("no overflow")
                .isEqualTo(999_999_999_999L);
        assertThat(Progress.etaSeconds(10_000, 10_000, second)).isZero();
        assertThat(Progress.etaSeconds(0, 10_000, second)).as("nothing done: unknown").isEqualTo(-1);
        assertThat(Progress.etaSeconds(5, 10_000, 0)).as("no time elapsed: unknown").isEqualTo(-1);
        assertThat(Progress.etaSeconds(5, 0, 10 * second)).as("no total: unknown").isEqualTo(-1);

        assertThat(Progress.clock(0)).isEqualTo("0:00");
        assertThat(Progress.clock(4)).isEqualTo("0:04");
        assertThat(Progress.clock(59)).isEqualTo("0:59");
        assertThat(Progress.clock(60)).isEqualTo("1:00");
        assertThat(Progress.clock(3_599)).isEqualTo("59:59");
        assertThat(Progress.clock(3_600)).isEqualTo("1:00:00");
        assertThat(Progress.clock(36_061)).isEqualTo("10:01:01");

        assertThat(Progress.elapsed(8_100_000_000L)).isEqualTo("8.1 s");
        assertThat(Progress.elapsed(125 * second)).isEqualTo("2:05");
        assertThat(Progress.rate(1_234, second)).isEqualTo("1,234");
        assertThat(Progress.rate(5, 2 * second)).isEqualTo("2.5");

        Progress p = progress(10_000, Mode.LINES, Duration.ofSeconds(5));
        at(Duration.ofSeconds(5));
        p.advance(4_500);
        assertThat(lines()).containsExactly("work: 4,500/10,000 (45%), 900/s, ETA 0:07");
        at(Duration.ofSeconds(3_605));
        p.advance(1);
        assertThat(lines()).last().isEqualTo("work: 4,501/10,000 (45%), 1.2/s, ETA 1:13:25");
    }

    @Test
    @DisplayName("close prints the final line once; a second close and later advances print nothing")
    void closeIsIdempotent() {
        Progress p = progress(10_000, Mode.LINES, Duration.ofSeconds(5));
        at(Duration.ofSeconds(2));
        p.advance(4_500);
        p.close();
        assertThat(lines()).containsExactly("work: 4,500/10,000 (45%) stopped after 2.0 s, 2,250/s");
        p.close();
        at(Duration.ofSeconds(60));
        p.advance(5_500);
        p.close();
        assertThat(p.count()).isEqualTo(10_000);
        assertThat(lines()).hasSize(1);

        bytes.reset();
        Progress terminal = progress(10, Mode.TERMINAL, Duration.ofMillis(100));
        terminal.close();
        terminal.close();
        assertThat(printed()).endsWith(NL).containsOnlyOnce(NL);
    }

    @Test
    @DisplayName("advance from eight threads counts exactly, and each line printed meanwhile is whole and in order")
    void concurrentAdvance() throws Exception {
        int threads = 8;
        int perThread = 50_000;
        TickingClock clock = new TickingClock();
        Progress p = new Progress("work", 0, Mode.LINES, out, clock::tick, Duration.ofMillis(1));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        p.advance(1);
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        p.close();

        assertThat(p.count()).isEqualTo((long) threads * perThread);
        List<String> lines = lines();
        assertThat(lines).last().asString().startsWith("work: 400,000 done in ");
        assertThat(lines.size()).as("reports while counting").isGreaterThan(10);
        Pattern shape = Pattern.compile("work: ([0-9,]+), [0-9.,]+/s");
        long previous = 0;
        for (String line : lines.subList(0, lines.size() - 1)) {
            Matcher m = shape.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            long count = Long.parseLong(m.group(1).replace(",", ""));
            assertThat(count).as(line).isGreaterThanOrEqualTo(previous);
            previous = count;
        }
    }

    @Test
    @DisplayName("-Djiyi.progress takes terminal, lines or off, and says the rule otherwise")
    void propertyValues() {
        assertThat(Mode.parse("terminal")).isEqualTo(Mode.TERMINAL);
        assertThat(Mode.parse(" LINES ")).isEqualTo(Mode.LINES);
        assertThat(Mode.parse("off")).isEqualTo(Mode.OFF);
        assertThatThrownBy(() -> Mode.parse("fancy")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jiyi.progress").hasMessageContaining("terminal, lines or off");
    }

    /** A clock that moves a microsecond each time any thread reads it. */
    private static final class TickingClock {
        private final AtomicLong now = new AtomicLong();

        long tick() {
            return now.addAndGet(1_000);
        }
    }
}
