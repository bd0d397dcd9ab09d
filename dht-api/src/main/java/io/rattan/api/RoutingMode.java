package io.rattan.api;

/** How a get chooses each next hop; carried by the request so that every hop on the path applies the same rule. */
public enum RoutingMode {
    /** The neighbour that makes the most key-space progress. */
    GREEDY(0, "greedy"),
    /** Progress discounted by the neighbour's expected delay (Bamboo's rule, knee learned from observed RTTs). */
    DELAY_AWARE(1, "delay-aware"),
    /**
     * The gateway contacts the nodes of the path itself, keeping p requests in flight; each answer names the next
     * candidates. Only a gateway runs it: routed gets are greedy or delay-aware.
     */
    ITERATIVE(2, "iterative");

    /** What a get uses when the client does not say. */
    public static final RoutingMode DEFAULT = DELAY_AWARE;

    private final int code;
    private final String label;

    RoutingMode(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    /** The name used on the HTTP API and the command line. */
    public String label() {
        return label;
    }

    /** The mode for a wire code, or null when unknown. */
    public static RoutingMode fromCode(int code) {
        return WireEnums.byCode(values(), RoutingMode::code, code);
    }

    /** Parses {@code greedy}, {@code delay-aware} or {@code iterative}, case-insensitively. */
    public static RoutingMode parse(String s) {
        return WireEnums.byLabel(values(), RoutingMode::label, s,
                "routing must be greedy, delay-aware or iterative, got '" + s + "'");
    }
}
