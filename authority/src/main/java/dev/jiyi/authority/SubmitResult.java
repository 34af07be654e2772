package dev.jiyi.authority;

/** The stored event, and whether this submission created it or found it already there (E2). */
public record SubmitResult(Event event, boolean created) {
}
