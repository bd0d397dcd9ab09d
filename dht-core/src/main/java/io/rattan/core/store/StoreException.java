package io.rattan.core.store;

/** A local storage failure (disk, corruption). The node answers the request with an error and keeps serving. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
