package io.rattan.core.client;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.RoutingMode;
import java.util.Objects;

/**
 * How a client performs one get.
 *
 * @param routing     how the get travels the overlay: recursive greedy, recursive delay-aware, or iterative
 * @param parallelism the p of an iterative get (questions in flight at the gateway); 0 for the default (3)
 * @param gateways    g, gateways the get starts at in parallel; the first good answer wins
 * @param hedge       send one more copy, through one more gateway, if no answer came within the hedge threshold
 * @param oneHop      send the copies straight to the nodes the gateway's one-hop image says hold the key (see
 *                    {@link OneHopRouter}) instead of routing them from the gateway; not with iterative routing
 */
public record GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge, boolean oneHop) {

    /** Most gateways one get may use. */
    public static final int GATEWAYS_MAX = 8;
    /** Most questions an iterative get may keep in flight. */
    public static final int PARALLELISM_MAX = 16;

    public GetOptions {
        Objects.requireNonNull(routing, "routing");
        if (parallelism < 0 || parallelism > PARALLELISM_MAX) {
            throw new IllegalArgumentException("p must be between 1 and " + PARALLELISM_MAX + " (0 for the default), "
                    + "got " + parallelism);
        }
        if (gateways < 1 || gateways > GATEWAYS_MAX) {
            throw new IllegalArgumentException("gateways must be between 1 and " + GATEWAYS_MAX + ", got " + gateways);
        }
        if (oneHop && routing == RoutingMode.ITERATIVE) {
            throw new IllegalArgumentException("a one-hop get goes straight to a replica: it cannot be iterative");
        }
    }

    /** Without one-hop. */
    public GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge) {
        this(routing, parallelism, gateways, hedge, false);
    }

    /**
     * The default: delay-aware routing through one gateway, hedged. In the simulator's OpenDHT workload this cuts
     * the p99 of a one-gateway get 3.2–4.4 times for about a fifth more messages (docs/experiments.md).
     */
    public static GetOptions defaults() {
        return new GetOptions(RoutingMode.DELAY_AWARE, 0, 1, true);
    }

    /**
     * The options a binary RPC request carries on the wire: a get's routing, p and one-hop flag, through one
     * gateway, unhedged (a binary client races and hedges itself). A put or remove: {@link #of} the default routing,
     * which they ignore.
     *
     * @throws IllegalArgumentException if {@code request} is no client request, or if the get's fields make no valid
     *                                  options (p out of range, one-hop iterative)
     */
    public static GetOptions carriedBy(Message request) {
        switch (request.type()) {
            case CLIENT_GET:
                ClientGet g = (ClientGet) request;
                return new GetOptions(g.routing(), g.parallelism(), 1, false, g.oneHop());
            case CLIENT_PUT:
            case CLIENT_REMOVE:
                return of(RoutingMode.DEFAULT);
            default:
                throw new IllegalArgumentException("not a client request: " + request.type());
        }
    }

    /** One gateway, no hedge, the given routing. */
    public static GetOptions of(RoutingMode routing) {
        return new GetOptions(routing, 0, 1, false);
    }

    public GetOptions withRouting(RoutingMode r) {
        return new GetOptions(r, parallelism, gateways, hedge, oneHop);
    }

    public GetOptions withParallelism(int p) {
        return new GetOptions(routing, p, gateways, hedge, oneHop);
    }

    public GetOptions withGateways(int g) {
        return new GetOptions(routing, parallelism, g, hedge, oneHop);
    }

    public GetOptions withHedge(boolean h) {
        return new GetOptions(routing, parallelism, gateways, h, oneHop);
    }

    public GetOptions withOneHop(boolean o) {
        return new GetOptions(routing, parallelism, gateways, hedge, o);
    }

    /**
     * Copies the get may send at most: g, plus one if hedged, or plus {@link OneHopRouter#HEDGES} for a hedged
     * one-hop get, whose hedges escalate from one replica to the next.
     */
    public int maxCopies() {
        return gateways + (!hedge ? 0 : oneHop ? OneHopRouter.HEDGES : 1);
    }
}
