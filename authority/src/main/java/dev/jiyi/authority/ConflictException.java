package dev.jiyi.authority;

/** A write contradicts what is stored, for example an event ID re-submitted with other content. */
public final class ConflictException extends JiyiException {

    public ConflictException(String message) {
        super(message);
    }
}
