package dev.jiyi.authority;

/** The thing a command is about does not exist in the requested scope. */
public final class NotFoundException extends JiyiException {

    public NotFoundException(String what, String id) {
        super(what + " not found: " + id);
    }
}
