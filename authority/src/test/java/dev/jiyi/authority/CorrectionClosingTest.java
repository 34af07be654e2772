package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static org.assertj.core.api.Assertions.assertThat;

/** Which closings a correction undoes, and where a corrected fact sits among equal starts. */
class CorrectionClosingTest {

    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2024 = Instant.parse("2024-01-01T00:00:00Z");
    private static final Instant T2025 = Instant.parse("2025-01-01T00:00:00Z");

    /** An end the user stated explicitly equals the mistaken member's start by coincidence: undo extends it. */
    @Test
    @DisplayName("C2 T4 revoking a member does not touch an end that was stated explicitly, even one equal to its start")
    void explicitEndIsNotUndone() {
        try (Authority a = open(dir)) {
            Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "I worked at Acme from 2020 until 2022", T2020));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "I joined Initech in 2022", T2022));
            MemoryDraft acmeDraft = MemoryDraft.builder(e1.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("works at Acme").quote(e1.text()).subject("me").factKey("employer")
                    .validAt(T2020).invalidAt(T2022).build();
            Memory acme = a.addMemory(ALICE_WORK, acmeDraft);
            Memory misdated = a.addMemory(ALICE_WORK, timelineFact(e2, "me", "employer", T2022));
            a.correctMemory(ALICE_WORK, misdated.id(), new CorrectionDraft("joined Initech in 2024", null, T2024));
            assertThat(a.memory(ALICE_WORK, acme.id()).orElseThrow().validity())
                    .as("Acme's end was stated by the user, not caused by the misdated memory")
                    .isEqualTo(new Validity(T2020, T2022));
        }
    }

    /** Two members from one event with equal starts are tie-broken by ID; the corrected memory gets a new, larger ID. */
    @Test
    @DisplayName("C2 T5 correcting the tie loser among two facts of one event keeps the winner current")
    void correctingSiblingKeepsItsPlace() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "I moved from Pari to Berlin", T2022));
            BatchResult<Memory> both = a.addMemories(List.of(
                    new Derivation(ALICE_WORK, timelineFact(e, "me", "city", T2022)),
                    new Derivation(ALICE_WORK, timelineFact(e, "me", "city", T2022))));
            Memory first = both.committed().get(0);
            Memory second = both.committed().get(1);
            Memory current = a.memory(ALICE_WORK, first.id()).orElseThrow().validity().invalidAt() == null ? first : second;
            Memory loser = current == first ? second : first;
            a.correctMemory(ALICE_WORK, loser.id(), new CorrectionDraft("lived in Paris (spelling fixed)", null, null));
            assertThat(a.memory(ALICE_WORK, current.id()).orElseThrow().validity())
                    .as("fixing a typo in the tie loser must not close the tie winner")
                    .isEqualTo(Validity.from(T2022));
        }
    }

    @Test
    @DisplayName("C2 T4 a stated end cut short by a member comes back when that member is revoked")
    void explicitEndTruncatedThenCloserRevoked() {
        try (Authority a = open(dir)) {
            Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "Acme 2020 until 2024", T2020));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "joined Initech", T2022));
            Memory acme = a.addMemory(ALICE_WORK, MemoryDraft.builder(e1.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("works at Acme").quote(e1.text()).subject("me").factKey("employer")
                    .validAt(T2020).invalidAt(T2024).build());
            Memory initech = a.addMemory(ALICE_WORK, timelineFact(e2, "me", "employer", T2022));
            a.correctMemory(ALICE_WORK, initech.id(), new CorrectionDraft("joined Initech in 2025", null, T2025));
            assertThat(a.memory(ALICE_WORK, acme.id()).orElseThrow().validity())
                    .as("the user's explicit end 2024 comes back once the member that cut it is revoked")
                    .isEqualTo(new Validity(T2020, T2024));
        }
    }

    /** C: correcting a closed member turns its closing into an 'explicit' end; revoking the closer then leaves a gap. */
    @Test
    @DisplayName("C2 T4 a corrected member is still closed by the member that closed the mistake, so revoking that one reopens it")
    void correctedMemberKeepsWhoClosedIt() {
        try (Authority a = open(dir)) {
            Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "I live in Pari", T2020));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "moved to Berlin", T2022));
            Memory paris = a.addMemory(ALICE_WORK, timelineFact(e1, "me", "city", T2020));
            Memory berlin = a.addMemory(ALICE_WORK, timelineFact(e2, "me", "city", T2022));
            Memory fixed = a.correctMemory(ALICE_WORK, paris.id(), new CorrectionDraft("lives in Paris", null, null)).corrected();
            a.correctMemory(ALICE_WORK, berlin.id(), new CorrectionDraft("moved to Berlin in 2025", null, T2025));
            assertThat(a.memory(ALICE_WORK, fixed.id()).orElseThrow().validity())
                    .as("Paris was closed by Berlin's start, not by the user; moving Berlin to 2025 moves Paris's end")
                    .isEqualTo(new Validity(T2020, T2025));
        }
    }

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
}
