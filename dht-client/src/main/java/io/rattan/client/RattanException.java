package io.rattan.client;

import io.rattan.api.Status;
import java.util.Objects;

/**
 * A request that did not succeed, with the {@link Status} that says why.
 *
 * <p>Statuses a gateway reports are passed through: {@link Status#BAD_REQUEST}, {@link Status#TOO_LARGE},
 * {@link Status#FORBIDDEN}, {@link Status#NOT_FOUND} and {@link Status#STORAGE_FULL} are final answers that the client
 * never retries. {@link Status#UNAVAILABLE}, {@link Status#TIMEOUT}, {@link Status#INTERNAL} and
 * {@link Status#IO_ERROR} are retried on another gateway
 * until the retries or the total timeout run out; the exception then carries the last status seen.
 * {@link Status#RATE_LIMITED} is retried too, but not before the wait the gateway asked for ({@link #retryAfter}):
 * the client honours it. {@link Status#QUOTA_EXCEEDED} (this client's storage share at the gateway is full) is final. Failures on the
 * client side map onto the same codes: no connection, a closed connection, too many requests in flight or a closed
 * client is {@link Status#UNAVAILABLE}; an attempt or total timeout is {@link Status#TIMEOUT}; a request the wire
 * protocol cannot carry (a value or secret above the codec's bounds) is {@link Status#BAD_REQUEST}.
 *
 * <p>Immutable and thread-safe.
 */
public class RattanException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Status status;
    private final long retryAfterMillis;

    /**
     * @param status  why the request failed; never {@link Status#OK}
     * @param message a sentence for logs and people
     */
    public RattanException(Status status, String message) {
        this(status, message, null);
    }

    /**
     * @param status  why the request failed; never {@link Status#OK}
     * @param message a sentence for logs and people
     * @param cause   the failure underneath, or null
     */
    public RattanException(Status status, String message, Throwable cause) {
        this(status, message, cause, 0);
    }

    /**
     * @param status           why the request failed; never {@link Status#OK}
     * @param message          a sentence for logs and people
     * @param cause            the failure underneath, or null
     * @param retryAfterMillis how long the gateway asked the client to wait before it asks again; 0 for no advice
     */
    public RattanException(Status status, String message, Throwable cause, long retryAfterMillis) {
        super(message, cause);
        this.status = Objects.requireNonNull(status, "status");
        if (status == Status.OK) {
            throw new IllegalArgumentException("a failure cannot have status OK");
        }
        this.retryAfterMillis = Math.max(0, retryAfterMillis);
    }

    /** How long the gateway asked the client to wait before asking again; zero when it gave no advice. */
    public java.time.Duration retryAfter() {
        return java.time.Duration.ofMillis(retryAfterMillis);
    }

    /** Why the request failed. */
    public Status status() {
        return status;
    }

    /** True when the client retries a failure with this status on another gateway. */
    public static boolean isRetryable(Status status) {
        // IO_ERROR: a replica's store failed and may recover (HTTP 503); STORAGE_FULL (507) is not retried, as a
        // full disk does not empty in a retry's time.
        return status == Status.UNAVAILABLE || status == Status.TIMEOUT || status == Status.INTERNAL
                || status == Status.IO_ERROR || status == Status.RATE_LIMITED;
    }
}
