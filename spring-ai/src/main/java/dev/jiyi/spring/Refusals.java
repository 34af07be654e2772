package dev.jiyi.spring;

import dev.jiyi.authority.InvalidInputException;

import java.util.function.Supplier;

/**
 * jiyi's refusal of a value as Spring's: an {@link IllegalArgumentException} (what Spring's
 * {@code Assert} and Spring AI's own repositories throw) with jiyi's field and rule as the message,
 * never the value.
 */
final class Refusals {

    private Refusals() {
    }

    static <T> T refused(Supplier<T> work) {
        try {
            return work.get();
        } catch (InvalidInputException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    static void refused(Runnable work) {
        refused(() -> {
            work.run();
            return null;
        });
    }

    /** A conversation ID Spring AI hands in: required and not blank. */
    static String conversationId(String conversationId) {
        if (conversationId == null || conversationId.isBlank()) {
            throw new IllegalArgumentException("conversationId: is required and must not be blank");
        }
        return conversationId;
    }
}
