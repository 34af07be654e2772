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
    static final Instant T2025 = Instant.parse("2025-01-01T00:00:00Z");


    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2024 = Instant.parse("2024-01-01T00:00:00Z");

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
}
