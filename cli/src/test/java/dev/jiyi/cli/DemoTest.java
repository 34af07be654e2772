package dev.jiyi.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DemoTest {

    @Test
    void demoRunsEveryStep() {
        CliRunner.Result r = new CliRunner(java.nio.file.Path.of("unused")).run("demo");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains("demo finished: every step succeeded")
                .contains("created event demo-1")
                .contains("already stored, nothing changed")
                .contains("quote: must be an exact substring")
                .contains("relations:")
                .contains("healthy")
                .contains("[raw_event, reference]")
                .contains("no evidence found for this query")
                .contains("EXPIRED")
                .contains("REVOKED")
                .contains("corrected by")
                .contains("deleted 1 event(s)")
                .contains("memories embedded")
                .contains("via vector")
                // L1 L3 the same queries on both indexes, the Lucene index built on first use and on demand
                .contains("$ jiyi recall '北京' --limit 3 --index fts5|lucene")
                .contains("  fts5    1. ")
                .contains("  lucene  1. ")
                .contains("jiyi: lucene index rebuilt from the authority: there was none yet")
                .contains("rebuilt the Lucene index:")
                .contains("lucene index: ")
                // P2 P3 a context pack, and one with a component omitted whole
                .contains("$ jiyi resume --session s2 --budget 1500 --model gpt-4o")
                .contains("\"about\":\"Memory context from jiyi")
                .contains("omitted (did not fit): nothing")
                .containsPattern("omitted \\(did not fit\\): (checkpoint|agreements_and_growth|recalled_memories|current_emotion|recent_events)")
                .doesNotContain("the indexes disagree")
                .doesNotContain("!! ");
    }
}
