package io.rattan.api;

/** Outcome codes carried by replies, with fixed wire codes. */
public enum Status {
    OK(0),
    NOT_FOUND(1),
    FORBIDDEN(2),
    BAD_REQUEST(3),
    TOO_LARGE(4),
    UNAVAILABLE(5),
    TIMEOUT(6),
    INTERNAL(7),
    /** A replica could not write: its disk (or store space limit) is full. Not worth retrying soon (HTTP 507). */
    STORAGE_FULL(8),
    /** A replica's store failed to read or write; the node may recover, so a retry can succeed (HTTP 503). */
    IO_ERROR(9),
    /**
     * The sender is over its request rate at this node; an {@code ErrorReply} with this status says how long to wait
     * ({@code retryAfterMillis}). A client retries after that wait.
     */
    RATE_LIMITED(10),
    /** The client has filled its storage share at this gateway; a final answer until some of its values expire. */
    QUOTA_EXCEEDED(11),
    /**
     * A quorum get reached fewer than the R replicas it asked for: the reply still carries the merge of those it
     * reached ({@code GetReply.replicasRead} says how many), which may miss values only the others hold.
     */
    PARTIAL(12),
    /**
     * An owned put whose sequence is below the one held, or equal to it with other content; or a remove that would
     * expire before the value it removes. Final: the owner must sign another sequence (HTTP 409).
     */
    CONFLICT(13),
    /**
     * An owned put's condition ({@code PutCondition}) did not hold at the root: the value held is not the one named,
     * or one is held where none was required (HTTP 412).
     */
    PRECONDITION_FAILED(14);

    private static final Status[] BY_CODE;

    static {
        int codeMax = 0;
        for (Status s : values()) {
            codeMax = Math.max(codeMax, s.code);
        }
        // Codes are not dense (some are allocated to work not merged here), so the table spans the largest one.
        BY_CODE = new Status[codeMax + 1];
        for (Status s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final int code;

    Status(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The status for a wire code, or null when unknown. */
    public static Status fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
