package io.rattan.core.client;

import io.rattan.core.msg.Consistency;
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
 * @param consistency {@link Consistency#ONE} (the default): the first replica the get reaches answers from its own
 *                    store; {@link Consistency#QUORUM}: that replica reads {@code readReplicas} replicas of the key
 *                    (itself included), answers with their merge (a removed value stays removed, an expired one is
 *                    left out) and repairs the replicas that lacked a record. A quorum get that reaches fewer
 *                    replicas answers with what it reached, flagged partial. Not with iterative routing
 * @param readReplicas R of a quorum get, 1..k (the key's replicas; a gateway refuses more); 0: the gateway's
 *                    default, ⌊k/2⌋+1 (3 of the default k = 4). Must be 0 with {@link Consistency#ONE}
 */
public record GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge, boolean oneHop,
                         Consistency consistency, int readReplicas) {

    /** Most gateways one get may use. */
    public static final int GATEWAYS_MAX = 8;
    /** Most questions an iterative get may keep in flight. */
    public static final int PARALLELISM_MAX = 16;
    /** Largest R a get may name: the largest k a node accepts (a leaf set of 32 per side, plus the node). */
    public static final int READ_REPLICAS_MAX = 33;

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
        Objects.requireNonNull(consistency, "consistency");
        if (readReplicas < 0 || readReplicas > READ_REPLICAS_MAX) {
            throw new IllegalArgumentException("r must be between 1 and " + READ_REPLICAS_MAX
                    + " (0 for the default), got " + readReplicas);
        }
        if (readReplicas > 0 && consistency != Consistency.QUORUM) {
            throw new IllegalArgumentException("r is the replicas a quorum get reads: use it with consistency=quorum");
        }
        if (consistency == Consistency.QUORUM && routing == RoutingMode.ITERATIVE) {
            // The iterative gateway takes the first answer of a node it asks; only a routed get reaches a replica
            // that reads the others.
            throw new IllegalArgumentException("a quorum get is routed to a replica that reads the others: "
                    + "it cannot be iterative");
        }
    }

    /** Read from one replica. */
    public GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge, boolean oneHop) {
        this(routing, parallelism, gateways, hedge, oneHop, Consistency.ONE, 0);
    }

    /** Without one-hop, read from one replica. */
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
     * The options a binary RPC request carries on the wire: a get's routing, p, one-hop flag, consistency and R,
     * through one gateway, unhedged (a binary client races and hedges itself). A put or remove: {@link #of} the
     * default routing, which they ignore.
     *
     * @throws IllegalArgumentException if {@code request} is no client request, or if the get's fields make no valid
     *                                  options (p or R out of range, one-hop or quorum iterative, R without quorum)
     */
    public static GetOptions carriedBy(Message request) {
        switch (request.type()) {
            case CLIENT_GET:
                ClientGet g = (ClientGet) request;
                return new GetOptions(g.routing(), g.parallelism(), 1, false, g.oneHop(), g.consistency(),
                        g.readReplicas());
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
        return new GetOptions(r, parallelism, gateways, hedge, oneHop, consistency, readReplicas);
    }

    public GetOptions withParallelism(int p) {
        return new GetOptions(routing, p, gateways, hedge, oneHop, consistency, readReplicas);
    }

    public GetOptions withGateways(int g) {
        return new GetOptions(routing, parallelism, g, hedge, oneHop, consistency, readReplicas);
    }

    public GetOptions withHedge(boolean h) {
        return new GetOptions(routing, parallelism, gateways, h, oneHop, consistency, readReplicas);
    }

    public GetOptions withOneHop(boolean o) {
        return new GetOptions(routing, parallelism, gateways, hedge, o, consistency, readReplicas);
    }

    /**
     * A quorum get of {@code r} replicas (0: the gateway's default, ⌊k/2⌋+1); see {@link #consistency()}.
     *
     * @throws IllegalArgumentException for r out of 0..{@value #READ_REPLICAS_MAX}, or with iterative routing
     */
    public GetOptions withQuorum(int r) {
        return new GetOptions(routing, parallelism, gateways, hedge, oneHop, Consistency.QUORUM, r);
    }

    /** Read from one replica again (the default). */
    public GetOptions withConsistencyOne() {
        return new GetOptions(routing, parallelism, gateways, hedge, oneHop, Consistency.ONE, 0);
    }

    /** Whether the get reads a quorum of replicas. */
    public boolean quorum() {
        return consistency == Consistency.QUORUM;
    }

    /**
     * Copies the get may send at most: g, plus one if hedged, or plus {@link OneHopRouter#HEDGES} for a hedged
     * one-hop get, whose hedges escalate from one replica to the next.
     */
    public int maxCopies() {
        return gateways + (!hedge ? 0 : oneHop ? OneHopRouter.HEDGES : 1);
    }
}
