package io.rattan.api;

/** How many replicas a get reads before it answers; carried by a client's get. */
public enum Consistency {
    /** The first replica the get reaches answers from its own store: the fast path the OpenDHT study measured. */
    ONE(0, "one"),
    /**
     * The replica that serves the get reads R replicas of the key (itself included), answers with their merge and
     * sends each replica that lacked a record (or held an older one) the merged record: a read repair.
     */
    QUORUM(1, "quorum");

    private final int code;
    private final String label;

    Consistency(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    /** The name used on the HTTP API ({@code consistency=one|quorum}) and the command line. */
    public String label() {
        return label;
    }

    /** The level for a wire code, or null when unknown. */
    public static Consistency fromCode(int code) {
        return WireEnums.byCode(values(), Consistency::code, code);
    }

    /** Parses {@code one} or {@code quorum}, case-insensitively. */
    public static Consistency parse(String s) {
        return WireEnums.byLabel(values(), Consistency::label, s, "consistency must be one or quorum, got '" + s + "'");
    }
}
