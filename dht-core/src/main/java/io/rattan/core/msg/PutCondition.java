package io.rattan.core.msg;

/**
 * What an owned put requires of the value its root holds for the same (owner, value id): nothing, that none is held
 * ({@code If-None-Match: *}), or that the one held has sequence {@code seq} ({@code If-Match: "seq"}). The root checks
 * it and writes in one step on its store thread, so conditional puts at one root are serialized: compare-and-swap.
 *
 * @param kind which condition
 * @param seq  the sequence {@link Kind#SEQ} requires (unsigned); 0 for the others
 */
public record PutCondition(Kind kind, long seq) {

    /** No condition: an unconditional put. */
    public static final PutCondition NONE = new PutCondition(Kind.NONE, 0);
    /** None held: the put creates the value. */
    public static final PutCondition ABSENT = new PutCondition(Kind.ABSENT, 0);

    /** The kinds, with their codes on the wire. */
    public enum Kind {
        NONE(0), ABSENT(1), SEQ(2);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The kind of a wire code, or null for an unknown one. */
        public static Kind fromCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    public PutCondition {
        if (kind == null) {
            throw new IllegalArgumentException("null kind");
        }
        if (kind != Kind.SEQ && seq != 0) {
            throw new IllegalArgumentException("only an If-Match condition names a sequence");
        }
    }

    /** The held value must have sequence {@code seq}. */
    public static PutCondition ifSeq(long seq) {
        return new PutCondition(Kind.SEQ, seq);
    }

    public boolean isNone() {
        return kind == Kind.NONE;
    }
}
