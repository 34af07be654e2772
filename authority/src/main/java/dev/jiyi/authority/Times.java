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
        return instant == null ? null : STORED.format(instant);
    }

    /** Reads the stored form back. */
    public static Instant read(String stored) {
        return stored == null ? null : Instant.parse(stored);
    }
}
