package dev.jiyi.ranking;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.MonthDay;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * R10: the time expressions of a recall query, Chinese and English, resolved against the query time
 * (or {@code as_of}) into windows that boost what lies inside them; they never filter.
 *
 * <p>Calendar units are those of the given zone; every window is a half-open run of whole local
 * days, [first day 00:00, day after the last 00:00), given as UTC instants.
 * <ul>
 *   <li>Days: 今天/今日/today; 昨天/昨日/yesterday; 前天/the day before yesterday; 大前天;
 *       N天前/N日前/N days ago: that day.</li>
 *   <li>Weeks (ISO, Monday start): 这周/本周/这个星期/这礼拜/this week; 上周/上个星期/上星期/上礼拜/last
 *       week; 上上周; N周前/N个星期前/N个礼拜前/N weeks ago: the week holding the query day minus N
 *       weeks.</li>
 *   <li>Months: 这个月/本月/this month; 上个月/上月/last month; 上上个月; N个月前/N months ago: that
 *       calendar month. A month without a year (五月, 5月, in May) is the most recent one that has
 *       started; 去年五月/last May is last year's, 今年三月/this March this year's, 前年三月 the year
 *       before; in May 2023, May 2023, 2023年5月, 2023年五月, 2023-05: that month. "since May" runs
 *       from May's first day to the end of the query day.</li>
 *   <li>Years: 今年/this year; 去年/last year; 前年/the year before last; 大前年; N年前/N years ago;
 *       2023年, in 2023, during 2023: that calendar year. A bare number is never a year.</li>
 *   <li>Days of a calendar: 2023年5月7日, 2023-05-07, 2023/05/07, May 7, 2023, 7 May 2023, the 7th of
 *       May 2023; without a year (5月7日, May 7th) the most recent such day.</li>
 *   <li>Counts: Arabic digits; 一 to 九十九 in Chinese numerals (两 for 2, 几 for 3); one to twelve,
 *       a, an, a couple of (2), a few (3). Beyond 100,000 days, 5,000 weeks, 1,000 months or 200
 *       years there is no window.</li>
 * </ul>
 * Traditional spellings (這週, 上個月, 上禮拜) count as well. English is case-insensitive and
 * bounded by word boundaries. Month names that are also ordinary words (may, march) and
 * abbreviations (jan, aug, sept...) count only before a day number or a year, or after in, last,
 * this, since, during, early, late or mid; after "this" only when no English word follows ("this
 * may be" is the verb, "this May" and "this May, 2025" the month). Overlapping matches resolve
 * to the longest (the earlier on a tie), and a longest match with no window (an invalid date, an
 * out-of-range count) yields nothing rather than a shorter reading. No window starts after the
 * query instant; only the first {@value #MAX_CHARS} characters are read.
 */
public final class TimeExpressions {

    /** A half-open window [start, end) a query's time expression resolves to, and the words it came from (as written in the query). */
    public record Window(Instant start, Instant end, String expression) {
        public Window {
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(end, "end");
            Objects.requireNonNull(expression, "expression");
            if (!start.isBefore(end)) {
                throw new IllegalArgumentException("window: start must be before end");
            }
        }

        /** Whether {@code t} lies in [start, end). */
        public boolean contains(Instant t) {
            return !t.isBefore(start) && t.isBefore(end);
        }
    }

    /** Characters of a query that are examined at most. */
    static final int MAX_CHARS = 4_000;

    /** Query instants beyond these years (far beyond any real query) find nothing, so date arithmetic cannot overflow. */
    private static final Instant EARLIEST = LocalDate.of(-99_999, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
    private static final Instant LATEST = LocalDate.of(99_999, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant();

    /** A calendar unit a count or a fixed phrase steps back in, with the largest count honoured. */
    private enum Unit {
        DAY(100_000), WEEK(5_000), MONTH(1_000), YEAR(200);

        final int cap;

        Unit(int cap) {
            this.cap = cap;
        }

        /** The unit holding {@code today} minus {@code n} units; null when {@code n} is out of range. */
        Days back(LocalDate today, int n) {
            if (n < 0 || n > cap) {
                return null;
            }
            return switch (this) {
                case DAY -> Days.of(today.minusDays(n), 1);
                case WEEK -> Days.of(today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).minusWeeks(n), 7);
                case MONTH -> month(YearMonth.from(today).minusMonths(n));
                case YEAR -> year(today.getYear() - n);
            };
        }
    }

    /** Local days [from, to). */
    private record Days(LocalDate from, LocalDate to) {
        private Days {
            if (!from.isBefore(to)) {
                throw new IllegalArgumentException("days: from must be before to");
            }
        }

        static Days of(LocalDate from, int length) {
            return new Days(from, from.plusDays(length));
        }
    }

    /** One match in the query: characters [from, to), and its days (null: a time expression with no window). */
    private record Match(int from, int to, Days days) {
        int length() {
            return to - from;
        }
    }

    /** One form of expression: its pattern, whether a match really is a time, and what it resolves to. */
    private record Rule(Pattern pattern, Predicate<MatchResult> accepts, BiFunction<MatchResult, LocalDate, Days> resolve) {
        Rule(String regex, BiFunction<MatchResult, LocalDate, Days> resolve) {
            this(regex, m -> true, resolve);
        }

        Rule(String regex, Predicate<MatchResult> accepts, BiFunction<MatchResult, LocalDate, Days> resolve) {
            this(Pattern.compile(regex, Pattern.CASE_INSENSITIVE), accepts, resolve);
        }
    }

    /** A fixed phrase: how many units back it points. */
    private record Shift(Unit unit, int back) {
    }

    private static final Map<String, Shift> PHRASES = phrases();

    private static final List<String> EN_COUNTS = List.of(
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve");
    private static final List<String> MONTH_NAMES = List.of("january", "february", "march", "april", "may", "june",
            "july", "august", "september", "october", "november", "december");
    private static final Map<String, Integer> COUNT_WORDS = Map.of("a", 1, "an", 1, "a couple of", 2, "a few", 3, "几", 3);
    private static final String ZH_DIGITS = "一二三四五六七八九";

    private static final String ZH_NUM = "[一二两三四五六七八九十几]{1,3}";
    private static final String NOT_AFTER_NUMBER = "(?<![\\d一二两三四五六七八九十百千万几])";
    private static final String EN_COUNT = "a\\s+couple\\s+of|a\\s+few|an?|" + String.join("|", EN_COUNTS) + "|\\d{1,7}";
    private static final String MONTHS = String.join("|", MONTH_NAMES) + "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";
    private static final String YEAR = "([1-9]\\d{3})";
    private static final List<String> ZH_RELATIVE_YEARS = List.of("今年", "去年", "前年", "大前年");
    private static final String ZH_RELATIVE_YEAR = "(大前年|前年|去年|今年)";
    private static final String ZH_MONTH_OR_DAY = "(\\d{1,2}|[一二三四五六七八九十]{1,3})";
    private static final String EN_MONTH_PREFIX = "(in|during|since|this|last|early|late|mid)";

    private static final List<Rule> RULES = List.of(
            // 昨天, 上个星期, last month, the year before last
            new Rule(phrasePattern(), (m, today) -> {
                Shift shift = PHRASES.get(m.group().toLowerCase(Locale.ROOT).replaceAll("\\s+", " "));
                return shift.unit().back(today, shift.back());
            }),
            // 三天前, 2个星期以前, 十个月之前, 3年前 (but 2023年前 is the year 2023)
            new Rule(NOT_AFTER_NUMBER + "(\\d{1,7}|" + ZH_NUM + ")(天|日|[周週]|[个個]?星期|[个個]?[礼禮]拜|[个個]月|年)[以之]?前",
                    m -> !(m.group(2).equals("年") && m.group(1).length() == 4 && Character.isDigit(m.group(1).charAt(0))),
                    (m, today) -> zhUnit(m.group(2)).back(today, count(m.group(1)))),
            // 3 days ago, a couple of weeks ago, twelve months ago
            new Rule("\\b(" + EN_COUNT + ")\\s+(day|week|month|year)s?\\s+ago\\b",
                    (m, today) -> Unit.valueOf(m.group(2).toUpperCase(Locale.ROOT)).back(today, count(m.group(1)))),
            // 五月, 5月份, 去年五月, 2023年5月, 5月7日, 2023年五月七号
            new Rule("(?:(?<!\\d)" + YEAR + "\\s*年\\s*|" + ZH_RELATIVE_YEAR + ")?(?<![\\d一二三四五六七八九十])"
                    + ZH_MONTH_OR_DAY + "\\s*月(?:\\s*份)?(?:\\s*" + ZH_MONTH_OR_DAY + "\\s*[日号號])?",
                    (m, today) -> calendar(today, zhYear(m.group(1), m.group(2), today), count(m.group(3)),
                            day(m.group(4)), false)),
            // August, in May, last May, mid-May, May 2023, May 7th, May 7, 2023, since March
            new Rule("\\b(?:" + EN_MONTH_PREFIX + "[\\s-]+)?(" + MONTHS + ")\\b(?:\\.(?=\\s*\\d))?"
                    + "(?:\\s*(\\d{1,2})(?:st|nd|rd|th)?\\b)?(?:,?\\s+(?:of\\s+)?" + YEAR + "\\b)?(?=\\s*+([a-z])?)",
                    TimeExpressions::isEnglishMonth,
                    (m, today) -> calendar(today, enYear(m.group(1), m.group(4), today), monthNumber(m.group(2)),
                            day(m.group(3)), "since".equalsIgnoreCase(m.group(1)))),
            // 7 May 2023, 7th of May, 4th July
            new Rule("\\b(\\d{1,2})(st|nd|rd|th)?\\s+(of\\s+)?(" + MONTHS + ")\\b(?:,?\\s+" + YEAR + "\\b)?",
                    m -> m.group(2) != null || m.group(3) != null || m.group(5) != null || !needsContext(m.group(4)),
                    (m, today) -> calendar(today, m.group(5) == null ? null : Integer.parseInt(m.group(5)),
                            monthNumber(m.group(4)), day(m.group(1)), false)),
            // 2023-05, 2023-05-07, 2023/5/7
            new Rule("(?<![\\d/-])" + YEAR + "([-/])(1[0-2]|0?[1-9])(?:\\2([12]\\d|3[01]|0?[1-9]))?(?!\\d|[-/]\\d)",
                    (m, today) -> calendar(today, Integer.parseInt(m.group(1)), count(m.group(3)), day(m.group(4)), false)),
            // 2023年 (not 1990年代)
            new Rule("(?<!\\d)" + YEAR + "\\s*年(?!代)", (m, today) -> year(Integer.parseInt(m.group(1)))),
            // in 2023, during 2023
            new Rule("\\b(?:in|during)\\s+" + YEAR + "\\b(?![-/]\\d)", (m, today) -> year(Integer.parseInt(m.group(1)))));

    private TimeExpressions() {
    }

    /** Every time expression in {@code text}, resolved against the instant {@code at} in {@code zone}, in order of appearance; overlapping matches resolved to the longest. Never throws on any input (null-free text of any length; cap the work: only the first 4,000 chars are examined). */
    public static List<Window> find(String text, Instant at, ZoneId zone) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(zone, "zone");
        if (at.isBefore(EARLIEST) || at.isAfter(LATEST)) {
            return List.of();
        }
        String scanned = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        LocalDate today = LocalDate.ofInstant(at, zone);
        List<Match> matches = new ArrayList<>();
        for (Rule rule : RULES) {
            Matcher m = rule.pattern().matcher(scanned);
            while (m.find()) {
                if (rule.accepts().test(m)) {
                    matches.add(new Match(m.start(), m.end(), rule.resolve().apply(m, today)));
                }
            }
        }
        matches.sort(Comparator.comparingInt(Match::length).reversed().thenComparingInt(Match::from));
        boolean[] taken = new boolean[scanned.length()];
        List<Match> kept = new ArrayList<>();
        for (Match match : matches) {
            if (free(taken, match)) {
                Arrays.fill(taken, match.from(), match.to(), true);
                kept.add(match);
            }
        }
        kept.sort(Comparator.comparingInt(Match::from));
        List<Window> windows = new ArrayList<>();
        for (Match match : kept) {
            if (match.days() == null) {
                continue;
            }
            Instant start = match.days().from().atStartOfDay(zone).toInstant();
            Instant end = match.days().to().atStartOfDay(zone).toInstant();
            // A day a zone skipped (Samoa, 2011-12-30) starts where the next one does: no window.
            if (start.isBefore(end) && !start.isAfter(at)) {
                windows.add(new Window(start, end, scanned.substring(match.from(), match.to())));
            }
        }
        return List.copyOf(windows);
    }

    private static boolean free(boolean[] taken, Match match) {
        for (int i = match.from(); i < match.to(); i++) {
            if (taken[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * A calendar month ({@code day} 0) or day. {@code year} null means the most recent one that has
     * started; {@code since} stretches the window to the end of {@code today}. Null: no such date.
     */
    private static Days calendar(LocalDate today, Integer year, int month, int day, boolean since) {
        if (month < 1 || month > 12 || day < 0 || day > Month.of(month).maxLength()) {
            return null;
        }
        Days days;
        if (day == 0) {
            YearMonth ym = YearMonth.of(today.getYear(), month);
            days = month(year != null ? ym.withYear(year) : ym.isAfter(YearMonth.from(today)) ? ym.minusYears(1) : ym);
        } else if (year != null) {
            days = YearMonth.of(year, month).isValidDay(day) ? Days.of(LocalDate.of(year, month, day), 1) : null;
        } else {
            days = mostRecent(MonthDay.of(month, day), today);
        }
        if (days == null || !since) {
            return days;
        }
        LocalDate end = today.plusDays(1);
        return days.from().isBefore(end) ? new Days(days.from(), end) : null;
    }

    /** The latest day on or before {@code today} falling on {@code monthDay} (29 February: up to 8 years back). */
    private static Days mostRecent(MonthDay monthDay, LocalDate today) {
        for (int y = today.getYear(); y > today.getYear() - 9; y--) {
            if (monthDay.isValidYear(y) && !monthDay.atYear(y).isAfter(today)) {
                return Days.of(monthDay.atYear(y), 1);
            }
        }
        return null;
    }

    private static Days month(YearMonth ym) {
        return new Days(ym.atDay(1), ym.plusMonths(1).atDay(1));
    }

    private static Days year(int year) {
        return new Days(LocalDate.of(year, 1, 1), LocalDate.of(year + 1, 1, 1));
    }

    /** The year of a Chinese month: written out, relative (去年), or null for the most recent. */
    private static Integer zhYear(String written, String relative, LocalDate today) {
        if (written != null) {
            return Integer.parseInt(written);
        }
        return relative == null ? null : today.getYear() - ZH_RELATIVE_YEARS.indexOf(relative);
    }

    /** The year of an English month: written out, "last" (last year's), "this" (this year's), or null. */
    private static Integer enYear(String prefix, String written, LocalDate today) {
        if (written != null) {
            return Integer.parseInt(written);
        }
        if ("last".equalsIgnoreCase(prefix)) {
            return today.getYear() - 1;
        }
        return "this".equalsIgnoreCase(prefix) ? today.getYear() : null;
    }

    private static Unit zhUnit(String unit) {
        return switch (unit) {
            case "天", "日" -> Unit.DAY;
            case "个月", "個月" -> Unit.MONTH;
            case "年" -> Unit.YEAR;
            default -> Unit.WEEK;
        };
    }

    /**
     * Whether an English month match is a time. May and March are also verbs and abbreviations
     * also names: such a word needs a day or year after it, or a prefix before it; after "this" it
     * must also not run on into a word ("this may be" is a modal, "this May, 2025" or "this May" are not).
     */
    private static boolean isEnglishMonth(MatchResult m) {
        if (m.group(3) != null || m.group(4) != null || !needsContext(m.group(2))) {
            return true;
        }
        return m.group(1) != null && !(m.group(1).equalsIgnoreCase("this") && m.group(5) != null);
    }

    private static boolean needsContext(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.equals("may") || lower.equals("march") || !MONTH_NAMES.contains(lower);
    }

    private static int monthNumber(String name) {
        String prefix = name.substring(0, 3).toLowerCase(Locale.ROOT);
        for (int i = 0; i < MONTH_NAMES.size(); i++) {
            if (MONTH_NAMES.get(i).startsWith(prefix)) {
                return i + 1;
            }
        }
        return 0;
    }

    /** A count as written (digits, Chinese numerals, English words); 0 for null, -1 when unreadable. */
    static int count(String written) {
        if (written == null) {
            return 0;
        }
        if (Character.isDigit(written.charAt(0))) {
            return written.length() > 9 ? -1 : Integer.parseInt(written);
        }
        String words = written.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        int english = EN_COUNTS.indexOf(words);
        return english >= 0 ? english + 1 : COUNT_WORDS.getOrDefault(words, chineseNumber(words));
    }

    /** A day of the month as written; 0 for none, -1 when unreadable or zero. */
    private static int day(String written) {
        int day = count(written);
        return written != null && day == 0 ? -1 : day;
    }

    /** 一 to 九十九 (两 for 2), or -1. */
    private static int chineseNumber(String s) {
        String digits = s.replace('两', '二');
        int ten = digits.indexOf('十');
        if (ten < 0) {
            return digits.length() == 1 ? chineseDigit(digits.charAt(0)) : -1;
        }
        int tens = ten == 0 ? 1 : ten == 1 ? chineseDigit(digits.charAt(0)) : -1;
        int rest = digits.length() - ten - 1;
        int ones = rest == 0 ? 0 : rest == 1 ? chineseDigit(digits.charAt(ten + 1)) : -1;
        return tens > 0 && ones >= 0 ? tens * 10 + ones : -1;
    }

    /** 一 to 九 as 1 to 9, or -1. */
    private static int chineseDigit(char c) {
        int index = ZH_DIGITS.indexOf(c);
        return index < 0 ? -1 : index + 1;
    }

    private static Map<String, Shift> phrases() {
        Map<String, Shift> phrases = new HashMap<>();
        phrase(phrases, Unit.DAY, 0, "今天", "今日", "today");
        phrase(phrases, Unit.DAY, 1, "昨天", "昨日", "yesterday");
        phrase(phrases, Unit.DAY, 2, "前天", "the day before yesterday");
        phrase(phrases, Unit.DAY, 3, "大前天");
        phrase(phrases, Unit.WEEK, 0, "这周", "本周", "这个星期", "这星期", "本星期", "这个礼拜", "这礼拜", "this week");
        phrase(phrases, Unit.WEEK, 1, "上周", "上个星期", "上星期", "上个礼拜", "上礼拜", "last week");
        phrase(phrases, Unit.WEEK, 2, "上上周", "上上个星期", "上上星期", "上上个礼拜", "上上礼拜");
        phrase(phrases, Unit.MONTH, 0, "这个月", "本月", "this month");
        phrase(phrases, Unit.MONTH, 1, "上个月", "上月", "last month");
        phrase(phrases, Unit.MONTH, 2, "上上个月", "上上月");
        phrase(phrases, Unit.YEAR, 0, "今年", "this year");
        phrase(phrases, Unit.YEAR, 1, "去年", "last year");
        phrase(phrases, Unit.YEAR, 2, "前年", "the year before last");
        phrase(phrases, Unit.YEAR, 3, "大前年");
        return Map.copyOf(phrases);
    }

    /** Adds {@code words} and their traditional spellings (這, 個, 週, 禮) as {@code back} units back. */
    private static void phrase(Map<String, Shift> phrases, Unit unit, int back, String... words) {
        for (String word : words) {
            phrases.put(word, new Shift(unit, back));
            phrases.put(traditional(word), new Shift(unit, back));
        }
    }

    private static String traditional(String simplified) {
        return simplified.replace('这', '這').replace('个', '個').replace('周', '週').replace('礼', '禮');
    }

    /**
     * All phrases, longest first; English ones between word boundaries with any whitespace inside.
     * A lookahead on the first characters lets most positions fail at once.
     */
    private static String phrasePattern() {
        String firsts = PHRASES.keySet().stream().map(p -> p.substring(0, 1)).distinct().sorted()
                .collect(Collectors.joining());
        return "(?=[" + firsts + "])(?:" + PHRASES.keySet().stream()
                .sorted(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()))
                .map(p -> p.charAt(0) < 0x80 ? "\\b" + p.replace(" ", "\\s+") + "\\b" : Pattern.quote(p))
                .collect(Collectors.joining("|")) + ")";
    }
}
