package io.rattan.core.msg;

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
    IO_ERROR(9);

    private static final Status[] BY_CODE;

    static {
        int maxCode = 0;
        for (Status s : values()) {
            maxCode = Math.max(maxCode, s.code);
        }
        BY_CODE = new Status[maxCode + 1];
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
