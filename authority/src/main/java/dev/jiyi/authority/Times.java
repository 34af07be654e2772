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

/**
 * Public times (E4): input must carry an offset or zone; everything is stored and returned in UTC,
 * at microsecond precision, as fixed-width ISO-8601 text that sorts chronologically.
 */
public final class Times {

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
        try {
            return truncate(OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant());
        } catch (DateTimeParseException notOffset) {
            // fall through to zoned and local forms
        }
        try {
            return truncate(ZonedDateTime.parse(text, DateTimeFormatter.ISO_ZONED_DATE_TIME).toInstant());
        } catch (DateTimeParseException notZoned) {
            // fall through
        }
        if (isLocal(text)) {
            throw new InvalidInputException(field, "must include a UTC offset or zone (for example +08:00 or Z)");
        }
        throw new InvalidInputException(field,
                "must be an ISO-8601 time with an offset, like 2024-05-01T10:00:00+08:00");
    }

    private static boolean isLocal(String text) {
        try {
            LocalDateTime.parse(text);
            return true;
        } catch (DateTimeParseException e) {
            try {
                LocalDate.parse(text);
                return true;
            } catch (DateTimeParseException e2) {
                return false;
            }
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
