package io.rattan.bench.harness;

import io.rattan.api.GetOptions;
import io.rattan.api.RoutingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One way of performing a get, named as the simulator's table names it ({@code docs/experiments.md}):
 *
 * <pre>
 * name     := ["one-hop-"] base ["-" G "gw"]
 * base     := "greedy" | "delay-aware" | "hedged" (delay-aware, hedged) | "iterative-" P | "one-hop" (alone)
 * </pre>
 *
 * e.g. {@code greedy}, {@code delay-aware-3gw}, {@code iterative-3}, {@code iterative-3-2gw}, {@code hedged},
 * {@code one-hop-hedged}. {@code all} names {@link #all()}. {@code opendht} is OpenDHT's one way of getting.
 *
 * @param name    the name, as given
 * @param options how the client (or the HTTP gateway) performs it
 */
record GetMode(String name, GetOptions options) {

    /** The one way OpenDHT gets, for {@code --target opendht}. */
    static final String OPENDHT = "opendht";

    private static final Pattern FORM =
            Pattern.compile("(one-hop-)?(greedy|delay-aware|hedged|iterative-(\\d+))(?:-(\\d+)gw)?");

    /** Every mode the client offers, in the simulator's table order, plus greedy's and one-hop's plain forms. */
    static List<GetMode> all() {
        List<GetMode> modes = new ArrayList<>();
        for (String n : List.of("greedy", "delay-aware", "delay-aware-2gw", "delay-aware-3gw", "iterative-3",
                "iterative-3-2gw", "hedged", "one-hop", "one-hop-hedged")) {
            modes.add(parse(n));
        }
        return modes;
    }

    /** Parses names separated by commas; {@code all} expands to {@code all}, the modes the target performs. */
    static List<GetMode> parseList(List<String> names, List<GetMode> all) {
        List<GetMode> modes = new ArrayList<>();
        for (String n : names) {
            if (n.equals("all")) {
                modes.addAll(all);
            } else {
                modes.add(parse(n));
            }
        }
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("no get mode given");
        }
        return modes;
    }

    static GetMode parse(String name) {
        String n = name.trim();
        if (n.equals(OPENDHT)) {
            return new GetMode(n, GetOptions.of(RoutingMode.GREEDY));
        }
        if (n.equals("one-hop")) {
            return new GetMode(n, GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true));
        }
        Matcher m = FORM.matcher(n);
        if (!m.matches()) {
            throw new IllegalArgumentException("unknown get mode '" + name + "': expected e.g. greedy, delay-aware, "
                    + "delay-aware-2gw, iterative-3, iterative-3-2gw, hedged, one-hop, one-hop-hedged, or all");
        }
        GetOptions o;
        switch (m.group(2)) {
            case "greedy":
                o = GetOptions.of(RoutingMode.GREEDY);
                break;
            case "delay-aware":
                o = GetOptions.of(RoutingMode.DELAY_AWARE);
                break;
            case "hedged":
                o = GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true);
                break;
            default:
                o = GetOptions.of(RoutingMode.ITERATIVE).withParallelism(Integer.parseInt(m.group(3)));
                break;
        }
        if (m.group(4) != null) {
            o = o.withGateways(Integer.parseInt(m.group(4)));
        }
        if (m.group(1) != null) {
            o = o.withOneHop(true);
        }
        return new GetMode(n, o);
    }

    /** The query string of the HTTP API that performs this mode, every parameter explicit (hedge defaults on). */
    String httpQuery() {
        StringBuilder q = new StringBuilder();
        q.append("routing=").append(options.routing().label());
        if (options.routing() == RoutingMode.ITERATIVE && options.parallelism() > 0) {
            q.append("&p=").append(options.parallelism());
        }
        q.append("&gateways=").append(options.gateways());
        q.append("&hedge=").append(options.hedge());
        q.append("&onehop=").append(options.oneHop());
        return q.toString();
    }
}
