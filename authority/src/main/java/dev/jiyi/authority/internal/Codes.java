package dev.jiyi.authority.internal;

import dev.jiyi.authority.InvalidInputException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Parsing of the lower-case codes that closed sets are stored and exchanged as. */
public final class Codes {

    private Codes() {
    }

    public static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidInputException(field, "is required");
        }
        for (E constant : type.getEnumConstants()) {
            if (constant.name().toLowerCase(Locale.ROOT).equals(value.strip().toLowerCase(Locale.ROOT))) {
                return constant;
            }
        }
        throw new InvalidInputException(field, "must be one of " + choices(type));
    }

    /** Every code of {@code type}: its constants' names in lower case. */
    public static <E extends Enum<E>> java.util.Set<String> all(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    }

    public static <E extends Enum<E>> String choices(Class<E> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(e -> e.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
    }
}
