package dev.jiyi.authority;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;

/**
 * Public times (E4): input must carry an offset or zone; everything is stored and returned in UTC,
 * at microsecond precision, as fixed-width ISO-8601 text that sorts chronologically. Years are limited
 * to 0001..9999 so that the text stays fixed-width.
 */
public final class Times {

    /** Stored times are fixed-width text, which sorts chronologically only within four-digit years. */
    private static final Instant MIN = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999999Z");

    /** A local date-time, then an optional offset, then an optional [zone]: one of the two is required. */
    private static final DateTimeFormatter INPUT = new java.time.format.DateTimeFormatterBuilder()
            .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
            .optionalStart().appendOffsetId().optionalEnd()
            .optionalStart().appendLiteral('[').parseCaseSensitive().appendZoneRegionId().appendLiteral(']').optionalEnd()
            .toFormatter()
            .withResolverStyle(java.time.format.ResolverStyle.STRICT)
            .withChronology(java.time.chrono.IsoChronology.INSTANCE);

    private static final DateTimeFormatter STORED =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    private Times() {
    }

    /**
     * Parses {@code 2024-05-01T10:00:00+08:00}, {@code ...Z} or {@code ...+08:00[Asia/Shanghai]}.
     * A time without an offset or zone is rejected, naming {@code field} but not the value.
     */
    public static Instant parse(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidInputException(field, "is required");
        }
        String text = value.strip();
        TemporalAccessor parsed;
        try {
            parsed = INPUT.parseBest(text, ZonedDateTime::from, OffsetDateTime::from, LocalDateTime::from);
        } catch (DateTimeParseException e) {
            if (isLocalDate(text)) {
                throw new InvalidInputException(field, "must include a UTC offset or zone, and a time of day");
            }
            throw new InvalidInputException(field,
                    "must be an ISO-8601 time with an offset, like 2024-05-01T10:00:00+08:00");
        }
        Instant instant = switch (parsed) {
            case ZonedDateTime z -> z.toInstant();
            case OffsetDateTime o -> o.toInstant();
            default -> throw new InvalidInputException(field, "must include a UTC offset or zone (for example +08:00 or Z)");
        };
        return checkRange(field, truncate(instant));
    }

    /** Rejects instants outside the years 0001..9999, whose stored text would not sort correctly. */
    public static Instant checkRange(String field, Instant instant) {
        if (instant != null && (instant.isBefore(MIN) || instant.isAfter(MAX))) {
            throw new InvalidInputException(field, "must be between the years 0001 and 9999");
        }
        return instant;
    }

    private static boolean isLocalDate(String text) {
        try {
            LocalDate.parse(text);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    public static Instant truncate(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** Current time at stored precision. */
    public static Instant now() {
        return truncate(Instant.now());
    }

    /** The stored (and returned) text form: {@code 2024-05-01T02:00:00.000000Z}. */
    public static String format(Instant instant) {
        if (instant == null) {
            return null;
        }
        long seconds = instant.getEpochSecond();
        if (seconds < 0 || seconds >= LAST_FOUR_DIGIT_YEAR) {
            return STORED.format(instant);
        }
        // Written by hand: a recall reads and binds hundreds of times, and the formatter costs microseconds each.
        long day = Math.floorDiv(seconds, 86_400);
        int second = (int) Math.floorMod(seconds, 86_400);
        java.time.LocalDate date = LocalDate.ofEpochDay(day);
        char[] c = "0000-00-00T00:00:00.000000Z".toCharArray();
        digits(c, 0, 4, date.getYear());
        digits(c, 5, 2, date.getMonthValue());
        digits(c, 8, 2, date.getDayOfMonth());
        digits(c, 11, 2, second / 3600);
        digits(c, 14, 2, second / 60 % 60);
        digits(c, 17, 2, second % 60);
        digits(c, 20, 6, instant.getNano() / 1_000);
        return new String(c);
    }

    /** Reads the stored form back. */
    public static Instant read(String stored) {
        if (stored == null) {
            return null;
        }
        if (stored.length() != STORED_LENGTH || stored.charAt(4) != '-' || stored.charAt(10) != 'T'
                || stored.charAt(19) != '.' || stored.charAt(26) != 'Z') {
            return Instant.parse(stored);
        }
        int year = number(stored, 0, 4);
        int month = number(stored, 5, 2);
        int day = number(stored, 8, 2);
        int hour = number(stored, 11, 2);
        int minute = number(stored, 14, 2);
        int second = number(stored, 17, 2);
        int micros = number(stored, 20, 6);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0
                || minute > 59 || second < 0 || second > 59 || micros < 0) {
            return Instant.parse(stored); // not the stored form after all: the parser says what is wrong
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (java.time.DateTimeException e) {
            return Instant.parse(stored); // February 30th: the parser's own error
        }
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3600L + minute * 60L + second, micros * 1_000L);
    }

    /** Length of the stored form with a four-digit year. */
    private static final int STORED_LENGTH = 27;
    /** The first second of the year 10000: later times have a longer year. */
    private static final long LAST_FOUR_DIGIT_YEAR = 253_402_300_800L;

    private static void digits(char[] into, int at, int width, int value) {
        for (int i = at + width - 1; i >= at; i--) {
            into[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    /** The decimal number of {@code width} digits at {@code at}, or -1 if a character is not a digit. */
    private static int number(String s, int at, int width) {
        int n = 0;
        for (int i = at; i < at + width; i++) {
            char ch = s.charAt(i);
            if (ch < '0' || ch > '9') {
                return -1;
            }
            n = n * 10 + (ch - '0');
        }
        return n;
    }
}
