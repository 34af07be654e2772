package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static org.assertj.core.api.Assertions.assertThat;

class TimesTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("E4 a time without offset or zone is rejected naming the field, not the value")
    void localTimeRejected() {
        for (String local : List.of("2024-05-01T10:00:00", "2024-05-01T10:00", "2024-05-01T10:00:00.123456",
                "2024-05-01")) {
            assertInvalid(() -> Times.parse("occurred_at", local), "occurred_at", local);
        }
        assertInvalid(() -> Times.parse("valid_at", "2024-05-01T10:00:00"), "valid_at", "2024-05-01");
    }

    @Test
    @DisplayName("E4 malformed and blank times are rejected naming the field, not the value")
    void malformedRejected() {
        for (String bad : List.of("昨天下午三点", "yesterday 3pm", "2024-13-01T10:00:00Z", "2024-05-01T25:00:00+08:00",
                "1714528800", "2024/05/01 10:00:00 +0800")) {
            assertInvalid(() -> Times.parse("when", bad), "when", bad);
        }
        assertInvalid(() -> Times.parse("when", ""), "when");
        assertInvalid(() -> Times.parse("when", "   "), "when");
        assertInvalid(() -> Times.parse("when", null), "when");
    }

    @Test
    @DisplayName("E4 +08:00 offsets and Z normalize to the same UTC instant")
    void offsetsNormalize() {
        Instant utc = Instant.parse("2024-05-01T02:00:00Z");
        assertThat(Times.parse("t", "2024-05-01T10:00:00+08:00")).isEqualTo(utc);
        assertThat(Times.parse("t", "2024-05-01T02:00:00Z")).isEqualTo(utc);
        assertThat(Times.parse("t", "2024-05-01T02:00:00+00:00")).isEqualTo(utc);
        assertThat(Times.parse("t", "2024-04-30T22:00:00-04:00")).isEqualTo(utc);
        assertThat(Times.parse("t", "2024-05-01T07:45:00+05:45")).isEqualTo(utc);
        assertThat(Times.parse("t", "  2024-05-01T10:00:00+08:00  ")).isEqualTo(utc);
        assertThat(Times.format(Times.parse("t", "2024-05-01T10:00:00+08:00"))).isEqualTo("2024-05-01T02:00:00.000000Z");
    }

    @Test
    @DisplayName("E4 an offset with a [Asia/Shanghai] zone normalizes to UTC")
    void offsetWithZoneNormalizes() {
        assertThat(Times.parse("t", "2024-05-01T10:00:00+08:00[Asia/Shanghai]"))
                .isEqualTo(Instant.parse("2024-05-01T02:00:00Z"));
        assertThat(Times.parse("t", "2024-07-01T10:00:00-04:00[America/New_York]"))
                .isEqualTo(Instant.parse("2024-07-01T14:00:00Z"));
    }

    @Test
    @DisplayName("E4 a time carrying only a [Asia/Shanghai] zone (no numeric offset) carries a timezone and normalizes")
    void zoneOnlyNormalizes() {
        assertThat(Times.parse("t", "2024-05-01T10:00:00[Asia/Shanghai]"))
                .isEqualTo(Instant.parse("2024-05-01T02:00:00Z"));
        assertThat(Times.parse("t", "2024-01-15T09:00:00[Europe/Berlin]"))
                .isEqualTo(Instant.parse("2024-01-15T08:00:00Z"));
    }

    @Test
    @DisplayName("E4 times are stored and returned in UTC at microsecond precision")
    void storedInUtc() throws Exception {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("tz", ALICE_WORK, Role.USER, "上海时间 Shanghai time",
                    Times.parse("t", "2024-05-01T10:00:00.123456789+08:00[Asia/Shanghai]")));
            assertThat(e.occurredAt()).isEqualTo(Instant.parse("2024-05-01T02:00:00.123456Z"));
            assertThat(a.event(ALICE_WORK, "tz").orElseThrow().occurredAt()).isEqualTo(e.occurredAt());
        }
        assertThat(AuthorityTestKit.string(dbFile(dir), "SELECT occurred_at FROM events WHERE id = 'tz'"))
                .isEqualTo("2024-05-01T02:00:00.123456Z");
    }

    @Test
    @DisplayName("E4 a submitted Instant with nanoseconds is stored at microseconds and round-trips equal")
    void nanosTruncated() {
        try (Authority a = open(dir)) {
            Instant nanos = Instant.parse("2024-05-01T02:00:00.987654321Z");
            Event e = submit(a, event("ns", ALICE_WORK, Role.USER, "纳秒 nanos", nanos));
            assertThat(e.occurredAt()).isEqualTo(Instant.parse("2024-05-01T02:00:00.987654Z"));
            assertThat(a.event(ALICE_WORK, "ns").orElseThrow()).isEqualTo(e);
            // Re-submitting the same nanosecond instant is the same payload (E2).
            assertThat(a.submitEvent(event("ns", ALICE_WORK, Role.USER, "纳秒 nanos", nanos)).created()).isFalse();
        }
    }

    @Test
    @DisplayName("E4 stored time text sorts chronologically (seeded property)")
    void storedTextSortsChronologically() {
        Random random = SeededRandom.create("E4 stored text sorts chronologically");
        List<Instant> instants = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            // Years 1000..9999, any microsecond.
            long lo = Instant.parse("1000-01-01T00:00:00Z").getEpochSecond();
            long hi = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
            long sec = lo + (long) (random.nextDouble() * (hi - lo));
            instants.add(Instant.ofEpochSecond(sec, random.nextInt(1_000_000) * 1000L));
        }
        instants.add(Instant.parse("1969-12-31T23:59:59.999999Z"));
        instants.add(Instant.parse("1970-01-01T00:00:00Z"));
        List<Instant> byText = new ArrayList<>(instants);
        byText.sort(Comparator.comparing(Times::format));
        List<Instant> byTime = new ArrayList<>(instants);
        byTime.sort(Comparator.naturalOrder());
        assertThat(byText).isEqualTo(byTime);
        for (Instant i : instants) {
            assertThat(Times.read(Times.format(i))).isEqualTo(i);
            assertThat(Times.format(i)).endsWith("Z").hasSize("2024-05-01T02:00:00.000000Z".length());
        }
    }

    @Test
    @DisplayName("E4 a parsed time round-trips through its stored form (seeded property over offsets)")
    void parseFormatRoundTrip() {
        Random random = SeededRandom.create("E4 parse/format round trip");
        for (int i = 0; i < 300; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextInt(2_000_000_000), random.nextInt(1_000_000) * 1000L);
            int offsetMinutes = (random.nextInt(26 * 4) - 12 * 4) * 15;
            var odt = instant.atOffset(java.time.ZoneOffset.ofTotalSeconds(offsetMinutes * 60));
            Instant parsed = Times.parse("t", odt.toString());
            assertThat(parsed).isEqualTo(instant);
            assertThat(Times.parse("t", Times.format(parsed))).isEqualTo(instant);
        }
    }

    @Test
    @DisplayName("E4 times are stored and read in UTC: the stored form written and read by hand is the formatter's, for any time kept")
    void storedFormByHand() {
        java.time.format.DateTimeFormatter formatter = java.time.format.DateTimeFormatter
                .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);
        Random random = new Random(20261204);
        List<Instant> times = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("1969-12-31T23:59:59.999999Z"),
                Instant.parse("2024-02-29T23:59:59.999999Z"), Instant.parse("9999-12-31T23:59:59.999999Z"),
                Instant.parse("0001-01-01T00:00:00Z")));
        for (int i = 0; i < 10_000; i++) {
            times.add(Times.truncate(Instant.ofEpochSecond(random.nextLong(-62_135_596_800L, 253_402_300_799L),
                    random.nextInt(1_000_000_000))));
        }
        for (Instant t : times) {
            Instant stored = Times.truncate(t);
            assertThat(Times.format(stored)).isEqualTo(formatter.format(stored));
            assertThat(Times.read(Times.format(stored))).isEqualTo(stored);
        }
        assertThat(Times.read("2024-05-01T02:00:00Z")).isEqualTo(Instant.parse("2024-05-01T02:00:00Z"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Times.read("2024-02-30T00:00:00.000000Z"))
                .isInstanceOf(java.time.DateTimeException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Times.read("2024-0a-01T00:00:00.000000Z"))
                .isInstanceOf(java.time.DateTimeException.class);
    }
}
