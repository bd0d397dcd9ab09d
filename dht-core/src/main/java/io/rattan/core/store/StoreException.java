package io.rattan.core.store;

/**
 * A local storage failure. The node answers the request it was serving with the status of its {@link Kind} and keeps
 * serving; it never swallows one.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What went wrong, which decides what the node answers (storage full, or an I/O error worth a retry). */
    public enum Kind {
        /** The disk, or the store's space limit, is full: writes fail until space returns. */
        FULL,
        /** Any other failure to read or write: the store may recover, so a retry elsewhere or later can succeed. */
        IO
    }

    private final Kind kind;

    /** An I/O failure. */
    public StoreException(String message, Throwable cause) {
        this(Kind.IO, message, cause);
    }

    public StoreException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        if (kind == null) {
            throw new IllegalArgumentException("kind is null");
        }
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
