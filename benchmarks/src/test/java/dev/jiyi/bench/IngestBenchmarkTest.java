package dev.jiyi.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Calls the JMH benchmark methods directly, with small sizes, to prove they do what they claim. */
class IngestBenchmarkTest {

    private final IngestBenchmark benchmark = new IngestBenchmark();

    @Test
    void singleCommitStoresOneNewEventPerInvocation() {
        IngestBenchmark.SingleCommit state = new IngestBenchmark.SingleCommit();
        state.seed = ChatCorpus.DEFAULT_SEED;
        state.open();
        try {
            for (int i = 0; i < 20; i++) {
                assertThat(benchmark.submitOne(state).created()).isTrue();
            }
            assertThat(IngestHarness.countEvents(state.scratch.home())).isEqualTo(20);
        } finally {
            state.close();
        }
        assertThat(state.scratch.dir()).doesNotExist();
    }

    @Test
    void batchLoadsEveryEventInChunksIntoAFreshDatabase() {
        IngestBenchmark.BatchLoad state = new IngestBenchmark.BatchLoad();
        state.events = 120;
        state.chunkSize = 50;
        state.seed = ChatCorpus.DEFAULT_SEED;
        state.generate();
        assertThat(state.chunks).extracting(List::size).containsExactly(50, 50, 20);
        for (int iteration = 0; iteration < 2; iteration++) {
            state.open();
            try {
                assertThat(benchmark.submitBatch(state)).isEqualTo(120);
                assertThat(IngestHarness.countEvents(state.scratch.home())).isEqualTo(120);
            } finally {
                state.close();
            }
        }
    }
}
