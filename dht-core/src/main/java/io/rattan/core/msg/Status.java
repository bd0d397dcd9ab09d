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
    INTERNAL(7);

    private static final Status[] BY_CODE;

    static {
        BY_CODE = new Status[values().length];
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
