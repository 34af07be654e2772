package dev.jiyi.authority;

/** An operation refused to protect data: a newer schema, an existing target, a non-empty destination. */
public final class RefusedException extends JiyiException {

    public RefusedException(String message) {
        super(message);
    }
}
