package dev.jiyi.ranking;

import dev.jiyi.authority.SeededRandom;
import dev.jiyi.ranking.TimeExpressions.Window;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * R10: time expressions in a query, Chinese and English, relative and absolute, resolve against the
 * query time into windows. Unless a test says otherwise the query time is Wednesday 2026-06-17
 * 10:00 UTC, read in UTC; a window is written as its first day and the day after its last.
 */
class TimeExpressionsTest {

    private static final Instant AT = Instant.parse("2026-06-17T10:00:00Z");
    private static final ZoneId UTC = ZoneOffset.UTC;

    private static List<Window> find(String query) {
        return TimeExpressions.find(query, AT, UTC);
    }

    private static void assertOne(String query, String expression, String firstDay, String endDay) {
        assertThat(find(query)).singleElement().isEqualTo(new Window(
                LocalDate.parse(firstDay).atStartOfDay(UTC).toInstant(),
                LocalDate.parse(endDay).atStartOfDay(UTC).toInstant(),
                expression));
    }

    @ParameterizedTest(name = "R10 days: {0}")
    @DisplayName("R10 days: today, yesterday, the day before, N days ago")
    @CsvSource(delimiter = '|', value = {
            "今天 | 今天 | 2026-06-17 | 2026-06-18",
            "今日的会议 | 今日 | 2026-06-17 | 2026-06-18",
            "what did we say today? | today | 2026-06-17 | 2026-06-18",
            "昨天吃了什么 | 昨天 | 2026-06-16 | 2026-06-17",
            "昨日 | 昨日 | 2026-06-16 | 2026-06-17",
            "Yesterday | Yesterday | 2026-06-16 | 2026-06-17",
            "前天 | 前天 | 2026-06-15 | 2026-06-16",
            "the day before yesterday | the day before yesterday | 2026-06-15 | 2026-06-16",
            "大前天 | 大前天 | 2026-06-14 | 2026-06-15",
            "三天前 | 三天前 | 2026-06-14 | 2026-06-15",
            "3天前 | 3天前 | 2026-06-14 | 2026-06-15",
            "十天以前 | 十天以前 | 2026-06-07 | 2026-06-08",
            "3 days ago | 3 days ago | 2026-06-14 | 2026-06-15",
            "three  DAYS ago | three  DAYS ago | 2026-06-14 | 2026-06-15",
            "a day ago | a day ago | 2026-06-16 | 2026-06-17",
            "二十三天前 | 二十三天前 | 2026-05-25 | 2026-05-26",
    })
    void days(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 weeks: {0}")
    @DisplayName("R10 weeks: ISO weeks starting Monday")
    @CsvSource(delimiter = '|', value = {
            "这周 | 这周 | 2026-06-15 | 2026-06-22",
            "本周 | 本周 | 2026-06-15 | 2026-06-22",
            "这个星期 | 这个星期 | 2026-06-15 | 2026-06-22",
            "這週 | 這週 | 2026-06-15 | 2026-06-22",
            "this week | this week | 2026-06-15 | 2026-06-22",
            "上周五开会 | 上周 | 2026-06-08 | 2026-06-15",
            "上个星期 | 上个星期 | 2026-06-08 | 2026-06-15",
            "上星期 | 上星期 | 2026-06-08 | 2026-06-15",
            "上礼拜 | 上礼拜 | 2026-06-08 | 2026-06-15",
            "Last Week | Last Week | 2026-06-08 | 2026-06-15",
            "上上周 | 上上周 | 2026-06-01 | 2026-06-08",
            "两周前 | 两周前 | 2026-06-01 | 2026-06-08",
            "2个星期前 | 2个星期前 | 2026-06-01 | 2026-06-08",
            "两个礼拜之前 | 两个礼拜之前 | 2026-06-01 | 2026-06-08",
            "two weeks ago | two weeks ago | 2026-06-01 | 2026-06-08",
            "a couple of weeks ago | a couple of weeks ago | 2026-06-01 | 2026-06-08",
            "a week ago | a week ago | 2026-06-08 | 2026-06-15",
            "三周前 | 三周前 | 2026-05-25 | 2026-06-01",
    })
    void weeks(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 months: {0}")
    @DisplayName("R10 months: this, last, N months ago, month names with and without a year")
    @CsvSource(delimiter = '|', value = {
            "这个月 | 这个月 | 2026-06-01 | 2026-07-01",
            "本月 | 本月 | 2026-06-01 | 2026-07-01",
            "this month | this month | 2026-06-01 | 2026-07-01",
            "上个月 | 上个月 | 2026-05-01 | 2026-06-01",
            "上月 | 上月 | 2026-05-01 | 2026-06-01",
            "last month | last month | 2026-05-01 | 2026-06-01",
            "上上个月 | 上上个月 | 2026-04-01 | 2026-05-01",
            "三个月前 | 三个月前 | 2026-03-01 | 2026-04-01",
            "3 months ago | 3 months ago | 2026-03-01 | 2026-04-01",
            "a few months ago | a few months ago | 2026-03-01 | 2026-04-01",
            "十二个月前 | 十二个月前 | 2025-06-01 | 2025-07-01",
            "五月 | 五月 | 2026-05-01 | 2026-06-01",
            "5月份的账单 | 5月份 | 2026-05-01 | 2026-06-01",
            "in May | in May | 2026-05-01 | 2026-06-01",
            "六月 | 六月 | 2026-06-01 | 2026-07-01",
            "June | June | 2026-06-01 | 2026-07-01",
            "八月 | 八月 | 2025-08-01 | 2025-09-01",
            "August | August | 2025-08-01 | 2025-09-01",
            "十二月 | 十二月 | 2025-12-01 | 2026-01-01",
            "in Sept | in Sept | 2025-09-01 | 2025-10-01",
            "mid-May | mid-May | 2026-05-01 | 2026-06-01",
            "early march | early march | 2026-03-01 | 2026-04-01",
            "去年五月 | 去年五月 | 2025-05-01 | 2025-06-01",
            "去年5月 | 去年5月 | 2025-05-01 | 2025-06-01",
            "last May | last May | 2025-05-01 | 2025-06-01",
            "今年三月 | 今年三月 | 2026-03-01 | 2026-04-01",
            "this March | this March | 2026-03-01 | 2026-04-01",
            "what did we do this May? | this May | 2026-05-01 | 2026-06-01",
            "this may, 2025 | this may, 2025 | 2025-05-01 | 2025-06-01",
            "上個月 | 上個月 | 2026-05-01 | 2026-06-01",
            "前年三月 | 前年三月 | 2024-03-01 | 2024-04-01",
            "in May 2023 | in May 2023 | 2023-05-01 | 2023-06-01",
            "May 2023 | May 2023 | 2023-05-01 | 2023-06-01",
            "may, 2023 | may, 2023 | 2023-05-01 | 2023-06-01",
            "Aug 2023 | Aug 2023 | 2023-08-01 | 2023-09-01",
            "2023年5月 | 2023年5月 | 2023-05-01 | 2023-06-01",
            "2023年五月 | 2023年五月 | 2023-05-01 | 2023-06-01",
            "2023-05 | 2023-05 | 2023-05-01 | 2023-06-01",
            "since May | since May | 2026-05-01 | 2026-06-18",
    })
    void months(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 years: {0}")
    @DisplayName("R10 years: this, last, the year before, N years ago, written years")
    @CsvSource(delimiter = '|', value = {
            "今年 | 今年 | 2026-01-01 | 2027-01-01",
            "this year | this year | 2026-01-01 | 2027-01-01",
            "去年 | 去年 | 2025-01-01 | 2026-01-01",
            "last year | last year | 2025-01-01 | 2026-01-01",
            "前年 | 前年 | 2024-01-01 | 2025-01-01",
            "the year before last | the year before last | 2024-01-01 | 2025-01-01",
            "三年前 | 三年前 | 2023-01-01 | 2024-01-01",
            "3年以前 | 3年以前 | 2023-01-01 | 2024-01-01",
            "3 years ago | 3 years ago | 2023-01-01 | 2024-01-01",
            "three years ago | three years ago | 2023-01-01 | 2024-01-01",
            "a year ago | a year ago | 2025-01-01 | 2026-01-01",
            "十年前 | 十年前 | 2016-01-01 | 2017-01-01",
            "2023年 | 2023年 | 2023-01-01 | 2024-01-01",
            "2023年前后 | 2023年 | 2023-01-01 | 2024-01-01",
            "in 2023 | in 2023 | 2023-01-01 | 2024-01-01",
            "During 2023 we moved | During 2023 | 2023-01-01 | 2024-01-01",
    })
    void years(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 dates: {0}")
    @DisplayName("R10 exact dates, with a year or the most recent one")
    @CsvSource(delimiter = '|', value = {
            "2023年5月7日 | 2023年5月7日 | 2023-05-07 | 2023-05-08",
            "2023年5月7号 | 2023年5月7号 | 2023-05-07 | 2023-05-08",
            "2023-05-07 | 2023-05-07 | 2023-05-07 | 2023-05-08",
            "2023/5/7 | 2023/5/7 | 2023-05-07 | 2023-05-08",
            "May 7, 2023 | May 7, 2023 | 2023-05-07 | 2023-05-08",
            "7 May 2023 | 7 May 2023 | 2023-05-07 | 2023-05-08",
            "on the 7th of May 2023 | 7th of May 2023 | 2023-05-07 | 2023-05-08",
            "5月7日 | 5月7日 | 2026-05-07 | 2026-05-08",
            "五月七日 | 五月七日 | 2026-05-07 | 2026-05-08",
            "May 7 | May 7 | 2026-05-07 | 2026-05-08",
            "may 7th | may 7th | 2026-05-07 | 2026-05-08",
            "7 March 2024 | 7 March 2024 | 2024-03-07 | 2024-03-08",
            "July 4th | July 4th | 2025-07-04 | 2025-07-05",
            "7月4日 | 7月4日 | 2025-07-04 | 2025-07-05",
            "6月17日 | 6月17日 | 2026-06-17 | 2026-06-18",
            "6月18日 | 6月18日 | 2025-06-18 | 2025-06-19",
            "2月29日 | 2月29日 | 2024-02-29 | 2024-03-01",
            "十二月二十五日 | 十二月二十五日 | 2025-12-25 | 2025-12-26",
            "去年5月7日 | 去年5月7日 | 2025-05-07 | 2025-05-08",
            "last May 7 | last May 7 | 2025-05-07 | 2025-05-08",
    })
    void dates(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 counts: {0}")
    @DisplayName("R10 counts in digits, Chinese numerals and English words")
    @CsvSource(delimiter = '|', value = {
            "十二天前 | 十二天前 | 2026-06-05 | 2026-06-06",
            "九十九天前 | 九十九天前 | 2026-03-10 | 2026-03-11",
            "两年前 | 两年前 | 2024-01-01 | 2025-01-01",
            "十个月前 | 十个月前 | 2025-08-01 | 2025-09-01",
            "几天前 | 几天前 | 2026-06-14 | 2026-06-15",
            "eleven days ago | eleven days ago | 2026-06-06 | 2026-06-07",
            "a few days ago | a few days ago | 2026-06-14 | 2026-06-15",
            "0 days ago | 0 days ago | 2026-06-17 | 2026-06-18",
            "100000 days ago | 100000 days ago | 1752-09-01 | 1752-09-02",
            "5000 weeks ago | 5000 weeks ago | 1930-08-18 | 1930-08-25",
            "1000个月前 | 1000个月前 | 1943-02-01 | 1943-03-01",
            "200 years ago | 200 years ago | 1826-01-01 | 1827-01-01",
    })
    void counts(String query, String expression, String firstDay, String endDay) {
        assertOne(query, expression, firstDay, endDay);
    }

    @ParameterizedTest(name = "R10 out of range: {0}")
    @DisplayName("R10 counts out of range or unreadable give no window")
    @ValueSource(strings = {"100001 days ago", "100001天前", "5001 weeks ago", "5001周前", "1001 months ago",
            "1001个月前", "201 years ago", "201年前", "99999999 days ago", "12345678901234567890 days ago",
            "一百二十天前", "十十天前", "2023-13", "2023年13月", "May 32", "5月32日", "2023年2月30日", "2023-02-29"})
    void outOfRange(String query) {
        assertThat(find(query)).isEmpty();
    }

    @ParameterizedTest(name = "R10 no time: {0}")
    @DisplayName("R10 queries with no time expression, and may/march as verbs")
    @ValueSource(strings = {"", "   ", "我喜欢吃火锅", "What is my favourite food?", "2023 people came", "room 2023",
            "since 2023", "version 2.0", "we had 5 days off", "What may I eat", "May I ask what we discussed?",
            "you MAY find it", "we will march to the office", "March forward!", "Jan said hi", "3 may go",
            "the dec file", "this may be wrong", "This March would be", "3个月", "1990年代", "5月0日"})
    void noTime(String query) {
        assertThat(find(query)).isEmpty();
    }

    @Test
    @DisplayName("R10 a month or day that has not come yet belongs to last year; nothing starts after the query time")
    void future() {
        assertThat(find("in May 2030")).isEmpty();
        assertThat(find("2027年")).isEmpty();
        assertThat(find("2027-01-01")).isEmpty();
        assertThat(find("今年十二月")).isEmpty();
        assertThat(find("this December")).isEmpty();
        assertThat(find("下周")).isEmpty();
        assertOne("十一月", "十一月", "2025-11-01", "2025-12-01");
    }

    @Test
    @DisplayName("R10 mixed Chinese and English queries, several expressions in order of appearance")
    void mixed() {
        assertOne("我去年五月 went to Hangzhou", "去年五月", "2025-05-01", "2025-06-01");
        assertThat(find("what did I eat yesterday 和上周的会议").stream().map(Window::expression))
                .containsExactly("yesterday", "上周");
        assertThat(find("上个月和in May 2023的事，还有三年前").stream().map(Window::expression))
                .containsExactly("上个月", "in May 2023", "三年前");
        assertThat(find("todayの昨天").stream().map(Window::expression)).containsExactly("today", "昨天");
    }

    @Test
    @DisplayName("R10 overlapping matches resolve to the longest")
    void longest() {
        assertOne("三天前天气很好", "三天前", "2026-06-14", "2026-06-15");
        assertOne("2023年5月7日", "2023年5月7日", "2023-05-07", "2023-05-08");
        assertOne("in 2023-05", "2023-05", "2023-05-01", "2023-06-01");
        assertOne("the day before yesterday", "the day before yesterday", "2026-06-15", "2026-06-16");
        assertThat(find("2023年13月")).isEmpty();
    }

    @Test
    @DisplayName("R10 calendar units are those of the zone; windows are UTC instants")
    void zone() {
        Instant at = Instant.parse("2026-12-01T17:00:00Z");
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        assertThat(TimeExpressions.find("昨天", at, shanghai)).containsExactly(new Window(
                Instant.parse("2026-11-30T16:00:00Z"), Instant.parse("2026-12-01T16:00:00Z"), "昨天"));
        assertThat(TimeExpressions.find("this month", Instant.parse("2026-11-30T20:00:00Z"), shanghai))
                .containsExactly(new Window(Instant.parse("2026-11-30T16:00:00Z"),
                        Instant.parse("2026-12-31T16:00:00Z"), "this month"));
        // New York moved its clocks forward on 2026-03-08: that day has 23 hours.
        assertThat(TimeExpressions.find("yesterday", Instant.parse("2026-03-09T12:00:00Z"), ZoneId.of("America/New_York")))
                .containsExactly(new Window(Instant.parse("2026-03-08T05:00:00Z"),
                        Instant.parse("2026-03-09T04:00:00Z"), "yesterday"));
        // Samoa skipped 2011-12-30: no window for it, and no exception.
        Instant samoa = Instant.parse("2011-12-30T22:00:00Z");
        assertThat(TimeExpressions.find("yesterday", samoa, ZoneId.of("Pacific/Apia"))).isEmpty();
        assertThat(TimeExpressions.find("this week", samoa, ZoneId.of("Pacific/Apia"))).hasSize(1);
    }

    @Test
    @DisplayName("R10 FTS-like junk, extreme instants and long input never throw; only 4,000 chars are read")
    void junk() {
        assertThat(find("\"昨天\" OR 上周* AND NEAR(a b, 5) -- ' ; \\ ^ 2023-13-45 May 32 13月 {} [] 1e9 days")
                .stream().map(Window::expression)).containsExactly("昨天", "上周");
        assertThat(TimeExpressions.find("yesterday", Instant.MAX, UTC)).isEmpty();
        assertThat(TimeExpressions.find("200 years ago", Instant.MIN, UTC)).isEmpty();
        assertThat(find("x".repeat(TimeExpressions.MAX_CHARS) + " yesterday")).isEmpty();
        assertThat(find("x".repeat(TimeExpressions.MAX_CHARS - 20) + " yesterday")).hasSize(1);
        for (String unit : List.of("a", "1", "十", " ", "May 7, ", "2023-", "去年五月", "a couple of ", "昨天 ")) {
            String huge = unit.repeat(100_000 / unit.length());
            List<Window> windows = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> find(huge));
            assertThat(windows).allSatisfy(w -> assertThat(w.start()).isBefore(w.end()).isBeforeOrEqualTo(AT));
        }
    }

    @Test
    @DisplayName("R10 random junk never throws and never yields an empty or future window (seeded property)")
    void randomJunk() {
        Random random = SeededRandom.create("R10 time expressions over random junk");
        String alphabet = "0123456789 -/,年月日号天周前个上去今本这ayMmaisnceo七五十两";
        for (int i = 0; i < 2_000; i++) {
            StringBuilder text = new StringBuilder(SeededRandom.mixedText(random, 20));
            for (int j = random.nextInt(30); j > 0; j--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            Instant at = randomInstant(random);
            String query = text.toString();
            assertThat(TimeExpressions.find(query, at, UTC)).as(query)
                    .allSatisfy(w -> assertThat(w.start()).isBefore(w.end()).isBeforeOrEqualTo(at));
        }
    }

    @Test
    @DisplayName("R10 N days/weeks/months/years ago contains the query day minus N units, daylight-saving gaps included (seeded property)")
    void agoProperty() {
        Random random = SeededRandom.create("R10 time expressions ago property");
        List<ZoneId> zones = List.of(UTC, ZoneId.of("Asia/Shanghai"), ZoneId.of("America/New_York"),
                ZoneId.of("Europe/Berlin"), ZoneId.of("Asia/Kolkata"), ZoneId.of("America/St_Johns"));
        List<ChronoUnit> units = List.of(ChronoUnit.DAYS, ChronoUnit.WEEKS, ChronoUnit.MONTHS, ChronoUnit.YEARS);
        int[] caps = {100_000, 5_000, 1_000, 200};
        // A seed that found it: the query day, Sunday 1928-05-06 in St John's, ends in a gap at 23:00.
        assertThat(TimeExpressions.find("what happened 4357 weeks ago", Instant.parse("2011-11-07T02:57:11Z"),
                ZoneId.of("America/St_Johns"))).singleElement().satisfies(w -> {
                    assertThat(w.start()).isEqualTo(Instant.parse("1928-04-30T03:30:52Z"));
                    assertThat(w.end()).isEqualTo(Instant.parse("1928-05-07T02:30:52Z"));
                });
        for (int i = 0; i < 3_000; i++) {
            int u = random.nextInt(units.size());
            int n = random.nextBoolean() ? random.nextInt(13) : random.nextInt(caps[u] + 1);
            Instant at = randomInstant(random);
            ZoneId zone = zones.get(random.nextInt(zones.size()));
            String expression = random.nextBoolean() ? english(random, u, n) : chinese(random, u, n);
            String query = List.of("", "我", "what happened ", "「").get(random.nextInt(4)) + expression
                    + List.of("", " 的事", "?", "，在杭州").get(random.nextInt(4));
            // The query day minus N units, from its start: the query's time of day minus N units can
            // fall in a daylight-saving gap and be pushed into the next day (St John's, 1928-05-06
            // 23:27 is 1928-05-07 00:27), and the window is whole days.
            Instant expected = ZonedDateTime.ofInstant(at, zone).toLocalDate().minus(n, units.get(u)).atStartOfDay(zone)
                    .toInstant();
            assertThat(TimeExpressions.find(query, at, zone)).as("%s at %s in %s", query, at, zone)
                    .singleElement()
                    .satisfies(w -> assertThat(w.expression()).isEqualTo(expression))
                    .satisfies(w -> assertThat(w.start()).isBefore(w.end()).isBeforeOrEqualTo(at))
                    .satisfies(w -> assertThat(w.contains(expected)).isTrue());
        }
    }

    @Test
    @DisplayName("R10 every supported expression at a random query time gives a non-empty window not after it (seeded property)")
    void expressionProperty() {
        Random random = SeededRandom.create("R10 time expressions window property");
        List<String> expressions = List.of("今天", "昨天", "前天", "上周", "这周", "上个月", "本月", "今年", "去年", "前年",
                "去年五月", "今年三月", "五月", "十二月", "5月7日", "2月29日", "2023年5月7日", "2023年", "in 2023", "2023-05",
                "today", "yesterday", "the day before yesterday", "this week", "last week", "this month", "last month",
                "this year", "last year", "the year before last", "in May", "last May", "since March", "May 7th",
                "February 29", "May 7, 2023", "7 May 2023", "in May 2023", "August");
        for (int i = 0; i < 2_000; i++) {
            String expression = expressions.get(random.nextInt(expressions.size()));
            Instant at = randomInstant(random);
            ZoneId zone = random.nextBoolean() ? UTC : ZoneId.of("Asia/Shanghai");
            List<Window> windows = TimeExpressions.find(expression, at, zone);
            assertThat(windows).as("%s at %s", expression, at).hasSizeLessThanOrEqualTo(1)
                    .allSatisfy(w -> assertThat(w.start()).isBefore(w.end()).isBeforeOrEqualTo(at));
            boolean mayBeFuture = expression.contains("2023") || expression.startsWith("this") || expression.startsWith("今年");
            if (!mayBeFuture) {
                assertThat(windows).as("%s at %s", expression, at).hasSize(1);
            }
        }
    }

    /** An instant between 1950 and 2150. */
    private static Instant randomInstant(Random random) {
        long from = Instant.parse("1950-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("2150-01-01T00:00:00Z").getEpochSecond();
        return Instant.ofEpochSecond(from + (long) (random.nextDouble() * (to - from)));
    }

    private static String english(Random random, int unit, int n) {
        String name = List.of("day", "week", "month", "year").get(unit) + (n == 1 ? "" : "s");
        String count = String.valueOf(n);
        if (n >= 1 && n <= 12 && random.nextBoolean()) {
            count = List.of("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                    "twelve").get(n - 1);
        } else if (n == 1 || n == 2 || n == 3) {
            count = List.of("a", "a couple of", "a few").get(n - 1);
        }
        return (random.nextBoolean() ? count : count.toUpperCase(Locale.ROOT)) + " " + name + " ago";
    }

    private static String chinese(Random random, int unit, int n) {
        List<List<String>> names = List.of(List.of("天", "日"), List.of("周", "个星期", "个礼拜", "星期"),
                List.of("个月"), List.of("年"));
        List<String> options = names.get(unit);
        String count = n <= 99 && random.nextBoolean() ? chineseNumber(n, random) : String.valueOf(n);
        return count + options.get(random.nextInt(options.size())) + List.of("前", "以前", "之前").get(random.nextInt(3));
    }

    private static String chineseNumber(int n, Random random) {
        String digits = "零一二三四五六七八九";
        if (n == 2 && random.nextBoolean()) {
            return "两";
        }
        if (n < 10) {
            return n == 0 ? "0" : String.valueOf(digits.charAt(n));
        }
        String tens = n < 20 ? "十" : digits.charAt(n / 10) + "十";
        return n % 10 == 0 ? tens : tens + digits.charAt(n % 10);
    }
}
