package io.rattan.node.gateway.http;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one HTTP listener serves. {@code /health} and {@code /ready} are served everywhere (probes need them); the
 * key API ({@code /v1/keys}) and the operator endpoints ({@code /metrics}, {@code /node}, {@code /admin/...}) only
 * where this says. A path not served answers 404, as an unknown one does.
 *
 * @param keys    {@code /v1/keys}: the client API
 * @param metrics {@code /metrics}
 * @param node    {@code /node}: identity and the leaf set's addresses
 * @param admin   {@code /admin/...}: the store's records, the slow-trace hook
 */
public record HttpSurfaces(boolean keys, boolean metrics, boolean node, boolean admin) {

    /** The client port as it has always been: the key API and every operator endpoint. */
    public static final HttpSurfaces ALL = new HttpSurfaces(true, true, true, true);
    /** The admin port: every operator endpoint, no key API. */
    public static final HttpSurfaces ADMIN = new HttpSurfaces(false, true, true, true);

    /** The names {@link #ofOperatorList} takes. */
    public static final List<String> OPERATOR_NAMES = List.of("metrics", "node", "admin");

    /**
     * The client port's surfaces from a list of operator endpoint names ({@link #OPERATOR_NAMES}, or {@code none}):
     * the key API always, and the endpoints named.
     *
     * @throws IllegalArgumentException for an unknown name, or {@code none} beside others
     */
    public static HttpSurfaces ofOperatorList(List<String> names) {
        Set<String> set = new LinkedHashSet<>();
        for (String n : names) {
            set.add(n.trim().toLowerCase(Locale.ROOT));
        }
        if (set.contains("none")) {
            if (set.size() > 1) {
                throw new IllegalArgumentException("'none' cannot stand beside other endpoints: " + names);
            }
            return new HttpSurfaces(true, false, false, false);
        }
        for (String n : set) {
            if (!OPERATOR_NAMES.contains(n)) {
                throw new IllegalArgumentException("unknown endpoint '" + n + "': say any of " + OPERATOR_NAMES
                        + ", or none");
            }
        }
        return new HttpSurfaces(true, set.contains("metrics"), set.contains("node"), set.contains("admin"));
    }

    /** The operator endpoints served, by name ({@code none} when there are none), as {@link #ofOperatorList} takes. */
    public List<String> operatorList() {
        List<String> out = new ArrayList<>();
        if (metrics) {
            out.add("metrics");
        }
        if (node) {
            out.add("node");
        }
        if (admin) {
            out.add("admin");
        }
        return out.isEmpty() ? List.of("none") : out;
    }
}
