package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cases an independent review found: a correction must not move a fact within its timeline or keep
 * the closing its mistake caused, and rows rewritten before a deletion must not leave copies in the
 * file. Each failed before its fix.
 */
class CorrectionRegressionTest {

    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2024 = Instant.parse("2024-01-01T00:00:00Z");

    /**
     * C2/T5: correcting a misread memory (no --valid-at) must not change which fact is current.
     * Two statements with the same start: the later one (Berlin) wins by T5 and Paris keeps [t, t).
     * The extraction of the Paris statement misspelt the city; fixing the spelling revives Paris and
     * closes Berlin, because the corrected memory is tie-broken by the correction event's sequence.
     */
    @Test
    @DisplayName("C2 T5 correcting the loser of an equal-start tie without valid_at keeps its place: the winner stays current")
    void correctingTieLoserKeepsWinner() {
        try (Authority a = open(dir)) {
            Event paris = submit(a, event("e-paris", ALICE_WORK, Role.USER, "I live in Paris", T2022));
            Event berlin = submit(a, event("e-berlin", ALICE_WORK, Role.USER, "Actually I live in Berlin now", T2022));
            Memory misread = a.addMemory(ALICE_WORK, timelineFact(paris, "me", "city", T2022));
            Memory winner = a.addMemory(ALICE_WORK, timelineFact(berlin, "me", "city", T2022));
            assertThat(a.memory(ALICE_WORK, misread.id()).orElseThrow().validity()).isEqualTo(new Validity(T2022, T2022));
            assertThat(a.memory(ALICE_WORK, winner.id()).orElseThrow().validity()).isEqualTo(Validity.from(T2022));

            Correction c = a.correctMemory(ALICE_WORK, misread.id(), new CorrectionDraft("lives in Paris (spelling fixed)", null, null));

            // Expected: the misread was a loser; its correction is a loser too, Berlin stays current.
            assertThat(a.memory(ALICE_WORK, winner.id()).orElseThrow().validity())
                    .as("the correct, current fact must not be closed by fixing a typo in an older statement")
                    .isEqualTo(Validity.from(T2022));
            assertThat(c.corrected().validity()).isEqualTo(new Validity(T2022, T2022));
        }
    }

    /**
     * C2/T4: a correction that moves a member's start earlier than its predecessor leaves the scope
     * with no current value: the predecessor stays closed at the mistaken (revoked) start. Had the
     * extraction been right in the first place (start 2019), the 2020 fact would be current.
     */
    @Test
    @DisplayName("C2 T4 a correction moving a start before its predecessor undoes the mistaken closing: the predecessor is current again")
    void correctionMovingStartBackKeepsACurrentFact() {
        try (Authority a = open(dir)) {
            Event e2020 = submit(a, event("e-2020", ALICE_WORK, Role.USER, "I work at Acme since 2020", T2020));
            Event e2022 = submit(a, event("e-2022", ALICE_WORK, Role.USER, "I worked at Initech back in 2019", T2022));
            Memory acme = a.addMemory(ALICE_WORK, timelineFact(e2020, "me", "employer", T2020));
            Memory misdated = a.addMemory(ALICE_WORK, timelineFact(e2022, "me", "employer", T2022)); // misread date
            Correction c = a.correctMemory(ALICE_WORK, misdated.id(),
                    new CorrectionDraft("worked at Initech in 2019", null, Instant.parse("2019-01-01T00:00:00Z")));

            assertThat(c.corrected().validity()).isEqualTo(new Validity(Instant.parse("2019-01-01T00:00:00Z"), T2020));
            assertThat(a.memory(ALICE_WORK, acme.id()).orElseThrow().validity())
                    .as("the 2020 fact was closed only by the misread memory, now revoked")
                    .isEqualTo(Validity.from(T2020));
        }
    }

    /**
     * D1 / docs "the deleted text leaves no readable trace in the database files": the existing
     * noTraceInFiles test only deletes rows that were never updated. A row rewritten before the
     * deletion (a memory revoked by a correction, closed by a successor, an event marked pending)
     * left its old cell in free space with secure_delete OFF; deleting it later only zeroes the
     * current cell.
     */
    @Test
    @DisplayName("D1 rows rewritten before the deletion (revoked, marked pending) leave no readable copy in the database files (secure_delete)")
    void noTraceAfterRewrittenRows() throws Exception {
        String memoryMarker = "秘密记忆RVWQ-memory-marker";
        String eventMarker = "绝密日记RVWZ-event-marker";
        try (Authority a = open(dir)) {
            filler(a, "pre");
            Event e = submit(a, event("ev-1", ALICE_WORK, Role.USER, "今天的" + eventMarker + " diary entry " + "x".repeat(6000), T2020));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, memoryMarker + " 摘要").quote(eventMarker).build());
            filler(a, "post");
            a.markExtractionPending(e.id(), "provider unavailable");        // rewrites the event row (overflow pages)
            a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("更正 corrected summary", null, null)); // rewrites m
            a.deleteEvent(ALICE_WORK, e.id());
        }
        boolean memoryLeft = !FileBytes.databaseFilesContaining(dir, memoryMarker).isEmpty();
        boolean eventLeft = !FileBytes.databaseFilesContaining(dir, eventMarker).isEmpty();
        assertThat(java.util.List.of(memoryLeft, eventLeft)).as("[memory text, event text] left in the files after deletion")
                .containsExactly(false, false);
    }

    /** Ordinary neighbours, so the rows involved do not sit alone on their pages. */
    private static void filler(Authority a, String prefix) {
        for (int i = 0; i < 30; i++) {
            Event k = submit(a, event(prefix + "-" + i, ALICE_WORK, Role.USER, "填充 filler " + i + " " + "y".repeat(300), T2024));
            a.addMemory(ALICE_WORK, userFact(k, "填充 " + i + " " + "z".repeat(200)).build());
        }
    }

}
