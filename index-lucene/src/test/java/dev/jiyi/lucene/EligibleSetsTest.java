package dev.jiyi.lucene;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kept eligibility sets ({@link EligibleSets}) admit exactly what the doc-values check of
 * {@link Documents#eligible} admits (T3: {@code valid_at <= at < invalid_at}; R8: the scope's live
 * memories), at every query time: on each side of every boundary, at the boundaries themselves,
 * at times that move forward as the clock does and back to earlier dates ({@code --as-of}), over
 * several segments, with deletions and with segments added between searches.
 */
class EligibleSetsTest {

    private static final Scope DIARY = new Scope("小明", "日记");
    private static final Scope WORK = new Scope("小明", "work");
    /** A scope with a memory or two in a segment of hundreds: its sets are sparse. */
    private static final Scope RARE = new Scope("Ada", "rare");
    private static final long NEVER = Long.MAX_VALUE;

    @Test
    @DisplayName("T3 R8 L4 the kept sets admit exactly the doc-values check's memories at every time, forward, backward and at each boundary, across segments and deletions")
    void keptSetsEqualTheCheck() throws IOException {
        Random random = SeededRandom.create("EligibleSetsTest.keptSetsEqualTheCheck");
        EligibleSets sets = new EligibleSets();
        Set<Long> boundaries = new TreeSet<>();
        try (Directory dir = new ByteBuffersDirectory();
             IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(
                     org.apache.lucene.index.NoMergePolicy.INSTANCE))) {
            int row = 0;
            for (int segment = 0; segment < 4; segment++) {
                row = addMemories(writer, random, row, 300, boundaries);
                writer.commit(); // a segment each
            }
            writer.deleteDocuments(new Term(Documents.ROW + "_key", "7"), new Term(Documents.ROW + "_key", "451"));
            writer.commit();

            List<Long> times = new ArrayList<>();
            for (long b : boundaries) {
                times.add(b - 1);
                times.add(b);
                times.add(b + 1);
            }
            times.add(Long.MIN_VALUE);
            times.add(NEVER);
            List<Long> forward = new ArrayList<>(times);
            java.util.Collections.sort(forward);
            List<Long> shuffled = new ArrayList<>(times);
            java.util.Collections.shuffle(shuffled, random);

            try (DirectoryReader reader = DirectoryReader.open(writer)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setQueryCache(null);
                assertAllEqual(searcher, sets, forward);
                long afterForward = sets.computed();
                assertAllEqual(searcher, sets, shuffled);
                assertThat(sets.computed()).as("after the latest time, every earlier one is checked on the doc values: no set is computed again")
                        .isEqualTo(afterForward);
            }

            // The clock moves on inside one interval: the sets are computed once per segment and scope, then read.
            long now = boundaries.stream().mapToLong(Long::longValue).max().orElseThrow() + 1_000;
            long future = now + 1_000_000_000L;
            try (DirectoryReader reader = DirectoryReader.open(writer)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setQueryCache(null);
                EligibleSets fresh = new EligibleSets();
                for (int i = 0; i < 50; i++) {
                    assertEqual(searcher, fresh, DIARY, now + i);
                }
                assertThat(fresh.computed()).as("one set per segment for a run of times no boundary splits")
                        .isEqualTo(reader.leaves().size());
            }

            // A reopened reader keeps the sets of the segments it shares: only a new segment computes one.
            row = addMemories(writer, random, row, 200, new TreeSet<>());
            writer.addDocument(memory(DIARY, row++, now + 500_000, NEVER)); // valid from after now, before the later date
            writer.commit();
            try (DirectoryReader reader = DirectoryReader.open(writer)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setQueryCache(null);
                long before = sets.computed();
                for (int i = 0; i < 20; i++) {
                    assertEqual(searcher, sets, DIARY, now + i);
                }
                assertThat(sets.computed() - before).as("the new segment's set only").isEqualTo(1);

                // A recall as of a later date keeps its own set: current recalls still read theirs.
                assertEqual(searcher, sets, DIARY, future);
                assertThat(sets.computed() - before).as("the later date's set of the new segment").isEqualTo(2);
                long checked = sets.checked();
                for (int i = 0; i < 20; i++) {
                    assertEqual(searcher, sets, DIARY, now + 20 + i);
                }
                assertThat(sets.computed() - before).as("the current sets stay beside the later date's").isEqualTo(2);
                assertThat(sets.checked()).as("and are read, not checked on the doc values").isEqualTo(checked);
            }
        }
    }

    @Test
    @DisplayName("T3 a memory whose validity starts later is admitted once the clock passes its start, and one that ends is dropped once it passes its end")
    void theClockCrossesABoundary() throws IOException {
        EligibleSets sets = new EligibleSets();
        try (Directory dir = new ByteBuffersDirectory();
             IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
            writer.addDocument(memory(DIARY, 1, 100, NEVER));
            writer.addDocument(memory(DIARY, 2, 500, NEVER)); // valid from 500
            writer.addDocument(memory(DIARY, 3, 100, 800));   // ends at 800
            writer.addDocument(memory(DIARY, 4, -1, NEVER));  // no valid_at: never valid
            writer.addDocument(revoked(DIARY, 5, 100, NEVER));
            writer.addDocument(memory(WORK, 6, 100, NEVER));
            writer.commit();
            try (DirectoryReader reader = DirectoryReader.open(writer)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                assertThat(rows(searcher, sets, DIARY, 499)).containsExactlyInAnyOrder(1L, 3L);
                assertThat(rows(searcher, sets, DIARY, 500)).containsExactlyInAnyOrder(1L, 2L, 3L);
                assertThat(rows(searcher, sets, DIARY, 799)).containsExactlyInAnyOrder(1L, 2L, 3L);
                assertThat(rows(searcher, sets, DIARY, 800)).containsExactlyInAnyOrder(1L, 2L);
                assertThat(rows(searcher, sets, DIARY, 99)).as("before every start: an as-of time").isEmpty();
                assertThat(rows(searcher, sets, DIARY, NEVER)).containsExactlyInAnyOrder(1L, 2L);
                assertThat(rows(searcher, sets, WORK, 600)).containsExactly(6L);
            }
        }
    }

    private static void assertAllEqual(IndexSearcher searcher, EligibleSets sets, List<Long> times) throws IOException {
        for (long at : times) {
            assertEqual(searcher, sets, DIARY, at);
            assertEqual(searcher, sets, WORK, at);
            assertEqual(searcher, sets, RARE, at);
        }
    }

    private static void assertEqual(IndexSearcher searcher, EligibleSets sets, Scope scope, long at) throws IOException {
        Eligibility filter = Eligibility.current(scope, instant(at));
        long micros = Eligibility.micros(filter.at());
        Set<Integer> checked = docs(searcher, Documents.eligible(filter));
        assertThat(docs(searcher, sets.query(filter))).as("%s at %d", scope, micros).isEqualTo(checked);
    }

    private static Set<Long> rows(IndexSearcher searcher, EligibleSets sets, Scope scope, long at) throws IOException {
        return rows(searcher, sets.query(Eligibility.current(scope, instant(at))));
    }

    private static Set<Integer> docs(IndexSearcher searcher, Query query) throws IOException {
        Set<Integer> out = new TreeSet<>();
        for (ScoreDoc hit : searcher.search(query, Integer.MAX_VALUE / 2).scoreDocs) {
            out.add(hit.doc);
        }
        return out;
    }

    private static Set<Long> rows(IndexSearcher searcher, Query query) throws IOException {
        Set<Long> out = new TreeSet<>();
        for (ScoreDoc hit : searcher.search(query, Integer.MAX_VALUE / 2).scoreDocs) {
            out.add(Long.parseLong(searcher.storedFields().document(hit.doc).get(Documents.ROW + "_key")));
        }
        return out;
    }

    /** Microseconds as the instant whose {@link Eligibility#micros} they are. */
    private static Instant instant(long micros) {
        if (micros == NEVER) {
            return Instant.MAX;
        }
        if (micros == Long.MIN_VALUE) {
            return Instant.MIN;
        }
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** Memories of both scopes, some revoked, with times drawn from a few shared values (so boundaries repeat). */
    private static int addMemories(IndexWriter writer, Random random, int row, int n, Set<Long> boundaries)
            throws IOException {
        long[] starts = {-5_000_000L, 0, 1_000_000L, 1_000_001L, 2_000_000L};
        for (int i = 0; i < n; i++) {
            Scope scope = random.nextInt(100) == 0 ? RARE : random.nextInt(4) == 0 ? WORK : DIARY;
            long valid = random.nextInt(20) == 0 ? -1 : starts[random.nextInt(starts.length)] + random.nextInt(3);
            long invalid = random.nextInt(3) == 0 ? valid + 1 + 500_000L * random.nextInt(4) + random.nextInt(3) : NEVER;
            if (valid != -1) {
                boundaries.add(valid);
            }
            if (invalid != NEVER) {
                boundaries.add(invalid);
            }
            writer.addDocument(random.nextInt(10) == 0 ? revoked(scope, row, valid, invalid) : memory(scope, row, valid, invalid));
            row++;
        }
        return row;
    }

    private static Document memory(Scope scope, long row, long valid, long invalid) {
        return document(Documents.livePool(scope, true), row, valid, invalid);
    }

    private static Document revoked(Scope scope, long row, long valid, long invalid) {
        return document(Documents.livePool(scope, false), row, valid, invalid);
    }

    /** The fields the filter reads, as {@link Documents#memory} writes them; -1 is "no valid_at". */
    private static Document document(String pool, long row, long valid, long invalid) {
        Document d = new Document();
        d.add(new StringField(Documents.ROW + "_key", Long.toString(row), Field.Store.YES));
        d.add(new StringField(Documents.POOL, pool, Field.Store.NO));
        d.add(new org.apache.lucene.document.SortedDocValuesField(Documents.POOL, new org.apache.lucene.util.BytesRef(pool)));
        if (valid != -1) {
            d.add(new LongField(Documents.VALID_AT, valid, Field.Store.NO));
        }
        d.add(new LongField(Documents.INVALID_AT, invalid, Field.Store.NO));
        return d;
    }
}
