package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Rejected.badRequest;

import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.GetOptions;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.ValueFilter;
import java.util.List;
import java.util.Map;

/**
 * The query parameters of the key requests, checked against their bounds: {@code ttl}, {@code max},
 * {@code placemark} and a get's options and value filter. Each is given at most once; a value out of bounds is a
 * {@link Rejected} 400 whose detail names the parameter. Stateless and thread-safe.
 */
final class QueryParams {

    /** Longest placemark accepted, in hex digits; a placemark is an opaque position a node handed out. */
    static final int PLACEMARK_DIGITS_MAX = 512;

    private QueryParams() {
    }

    /** {@code ttl=1..ttlSecondsMax} in seconds; absent: {@code fallback}. */
    static int ttl(Map<String, List<String>> query, int fallback, int ttlSecondsMax) throws Rejected {
        return intParam(query, "ttl", fallback, 1, ttlSecondsMax, "seconds");
    }

    /** {@code name=min..max}, a whole number of {@code unit}; absent: {@code fallback}. */
    static int intParam(Map<String, List<String>> query, String name, int fallback, int min, int max,
                        String unit) throws Rejected {
        String text = singleParam(query, name);
        if (text == null) {
            return fallback;
        }
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw badRequest(name + " must be a whole number of " + unit + " from " + min + " to " + max + ", got "
                    + KeyParser.quote(text));
        }
        if (v < min) {
            throw badRequest(name + " must be at least " + min + ", got " + v);
        }
        if (v > max) {
            throw badRequest(name + " must be at most " + max + " " + unit + ", got " + v);
        }
        return (int) v;
    }

    /**
     * How a get runs: {@code routing=greedy|delay-aware|iterative}, {@code p=1..16} (iterative only),
     * {@code gateways=1..8}, {@code hedge=true|false}, {@code onehop=true|false}, {@code consistency=one|quorum},
     * {@code r=1..k} (quorum only; {@code replicasMax} is k), {@code owner=<base64url key>} and {@code valueId=N}
     * ({@link #filter}). Absent ones take {@link GetOptions#defaults()}, the routing {@code routingDefault} (the
     * namespace's), except that an iterative get is not hedged:
     * it runs at this gateway alone (the node would route other copies recursively).
     */
    static GetOptions getOptions(Map<String, List<String>> query, int replicasMax, RoutingMode routingDefault)
            throws Rejected {
        GetOptions defaults = GetOptions.defaults();
        RoutingMode routing = routing(query, routingDefault);
        boolean iterative = routing == RoutingMode.ITERATIVE;
        String p = singleParam(query, "p");
        int parallelism = intParam(query, "p", 0, 1, GetOptions.PARALLELISM_MAX, "requests in flight");
        if (p != null && !iterative) {
            throw badRequest("p is the parallelism of an iterative get: use it with routing=iterative");
        }
        int gateways = intParam(query, "gateways", defaults.gateways(), 1, GetOptions.GATEWAYS_MAX, "nodes");
        boolean hedge = booleanParam(query, "hedge", defaults.hedge() && !iterative);
        boolean oneHop = booleanParam(query, "onehop", defaults.oneHop());
        if (iterative && (gateways > 1 || hedge || oneHop)) {
            // The other nodes would route their copies recursively; an iterative get runs where it started.
            throw badRequest("an iterative get runs at this gateway alone: gateways must be 1, hedge and onehop "
                    + "false, got gateways=" + gateways + ", hedge=" + hedge + " and onehop=" + oneHop);
        }
        Consistency consistency = consistency(query);
        String r = singleParam(query, "r");
        int readReplicas = intParam(query, "r", 0, 1, Math.min(replicasMax, GetOptions.READ_REPLICAS_MAX),
                "replicas");
        if (r != null && consistency != Consistency.QUORUM) {
            throw badRequest("r is how many replicas a quorum get reads: use it with consistency=quorum");
        }
        if (consistency == Consistency.QUORUM && iterative) {
            throw badRequest("a quorum get is routed to a replica that reads the others: it cannot be iterative");
        }
        return GetOptions.builder().routing(routing).parallelism(parallelism).gateways(gateways).hedge(hedge)
                .oneHop(oneHop).consistency(consistency, readReplicas).filter(filter(query)).build();
    }

    /**
     * {@code owner=<the owner's Ed25519 public key, 32 bytes in base64url without padding>}: only that owner's
     * values; with {@code valueId=<unsigned decimal>}, only its value of that id. Absent: every value.
     */
    static ValueFilter filter(Map<String, List<String>> query) throws Rejected {
        String owner = singleParam(query, "owner");
        String valueId = singleParam(query, "valueId");
        if (owner == null) {
            if (valueId != null) {
                throw badRequest("valueId names one of an owner's values: give owner too");
            }
            return ValueFilter.NONE;
        }
        Bytes key = OwnerHeaders.base64Url(query, "owner", OwnerStamp.OWNER_BYTES);
        return valueId == null ? ValueFilter.owner(key)
                : ValueFilter.value(key, OwnerHeaders.unsigned(query, "valueId"));
    }

    /** {@code placemark=<hex>}, as a previous page returned it; absent or empty: the first page. */
    static Bytes placemark(Map<String, List<String>> query) throws Rejected {
        String text = singleParam(query, "placemark");
        if (text == null || text.isEmpty()) {
            return Bytes.EMPTY;
        }
        if (text.length() > PLACEMARK_DIGITS_MAX || text.length() % 2 != 0 || KeyParser.firstNonHex(text) >= 0) {
            throw badRequest("placemark must be the hex string a previous page returned, got "
                    + KeyParser.quote(text));
        }
        return Bytes.fromHex(text);
    }

    /** {@code consistency=one|quorum}, any case; absent: one. */
    private static Consistency consistency(Map<String, List<String>> query) throws Rejected {
        String text = singleParam(query, "consistency");
        if (text == null) {
            return Consistency.ONE;
        }
        try {
            return Consistency.parse(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    /** {@code name=true|false}, any case; absent: {@code fallback}. */
    static boolean booleanParam(Map<String, List<String>> query, String name, boolean fallback)
            throws Rejected {
        String text = singleParam(query, name);
        if (text == null) {
            return fallback;
        }
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw badRequest(name + " must be true or false, got " + KeyParser.quote(text));
    }

    /** {@code routing=greedy|delay-aware|iterative}, any case; absent: {@code fallback}. */
    private static RoutingMode routing(Map<String, List<String>> query, RoutingMode fallback) throws Rejected {
        String text = singleParam(query, "routing");
        if (text == null) {
            return fallback;
        }
        try {
            return RoutingMode.parse(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    private static String singleParam(Map<String, List<String>> query, String name) throws Rejected {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw badRequest(name + " is given " + values.size() + " times; give it once");
        }
        return values.get(0);
    }
}
