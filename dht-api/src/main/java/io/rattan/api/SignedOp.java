package io.rattan.api;

/** What an owner's signature allows: the op byte of {@code SignedBytes}. */
public enum SignedOp {
    /** Store this data as the slot's value. */
    PUT(1),
    /** Remove the slot's value: a tombstone. */
    REMOVE(2);

    private final byte code;

    SignedOp(int code) {
        this.code = (byte) code;
    }

    /** The byte signed for this op. */
    public byte code() {
        return code;
    }
}
