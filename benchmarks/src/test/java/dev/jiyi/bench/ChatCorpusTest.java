package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.EventSubmission;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChatCorpusTest {

    @Test
    void sameSeedSameEvents() {
        List<EventSubmission> a = new ChatCorpus(7, "r").nextEvents(300);
        List<EventSubmission> b = new ChatCorpus(7, "r").nextEvents(300);
        assertThat(a).isEqualTo(b);
        assertThat(new ChatCorpus(8, "r").nextEvents(300)).isNotEqualTo(a);
    }

    @Test
    void textsAreTwentyToTwoHundredCharactersInBothLanguages() {
        List<EventSubmission> events = new ChatCorpus(ChatCorpus.DEFAULT_SEED, "r").nextEvents(2_000);
        assertThat(events).allSatisfy(e -> assertThat(e.text().length())
                .as("length of %s", e.id())
                .isBetween(ChatCorpus.MIN_LENGTH, ChatCorpus.MAX_LENGTH));
        long withCjk = events.stream().filter(e -> e.text().chars().anyMatch(c -> ChineseTokens.isCjk((char) c))).count();
        long withLatin = events.stream().filter(e -> e.text().chars().anyMatch(c -> c >= 'a' && c <= 'z')).count();
        long mixed = events.stream().filter(e -> e.text().chars().anyMatch(c -> ChineseTokens.isCjk((char) c))
                && e.text().chars().anyMatch(c -> c >= 'a' && c <= 'z')).count();
        assertThat(withCjk).isBetween(1_000L, 1_700L);
        assertThat(withLatin).isBetween(700L, 1_400L);
        assertThat(mixed).isGreaterThan(200L);
        double mean = events.stream().mapToInt(e -> e.text().length()).average().orElseThrow();
        assertThat(mean).isBetween(100.0, 150.0);
    }

    @Test
    void idsAreUniqueAndSessionsHoldFiftyTurns() {
        List<EventSubmission> events = new ChatCorpus(1, "x").nextEvents(120);
        assertThat(events).extracting(EventSubmission::id).doesNotHaveDuplicates();
        assertThat(events.get(0).id()).isEqualTo("bench-x-0");
        assertThat(events.get(49).sessionId()).isEqualTo("session-x-0");
        assertThat(events.get(50).sessionId()).isEqualTo("session-x-1");
        assertThat(events.get(1).occurredAt()).isAfter(events.get(0).occurredAt());
    }

    @Test
    void jsonLineEscapesQuotesAndBackslashes() {
        EventSubmission e = new EventSubmission("a\"b", dev.jiyi.authority.Scope.DEFAULT, dev.jiyi.authority.Role.USER,
                "说 \"hi\" \\ ok\n", null, null, "s", java.time.Instant.parse("2024-05-01T01:00:00Z"));
        assertThat(ChatCorpus.jsonLine(e)).isEqualTo("{\"id\":\"a\\\"b\",\"role\":\"user\",\"text\":\"说 \\\"hi\\\" \\\\ ok\\n\","
                + "\"session\":\"s\",\"occurred_at\":\"2024-05-01T09:00:00+08:00\",\"source\":\"cli\"}");
    }
}
