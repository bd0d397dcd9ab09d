package io.rattan.api;

import java.util.Objects;

/**
 * How one get is performed, built once where the get enters (a client, a gateway's HTTP query, a binary request's
 * fields) and carried unchanged by its {@code ClientMessages.ClientGet} to the gateway that starts it. Build one with
 * {@link #builder()}, or start from {@link #defaults()} or {@link #of(RoutingMode)}.
 *
 * @param routing      how the get travels the overlay: recursive greedy, recursive delay-aware, or iterative
 * @param parallelism  the p of an iterative get (questions in flight at the gateway); 0 for the default (3)
 * @param gateways     g, gateways the get starts at in parallel; the first good answer with a value wins (an empty
 *                     one only once every copy answered: a liar on one path can answer empty)
 * @param hedge        send one more copy, through one more gateway, if no answer came within the hedge threshold
 * @param oneHop       send the copies straight to the nodes the sender's one-hop image says hold the key instead of
 *                     routing them from the gateway; not with iterative routing
 * @param consistency  {@link Consistency#ONE} (the default): the first replica the get reaches answers from its own
 *                     store; {@link Consistency#QUORUM}: that replica reads {@code readReplicas} replicas of the key
 *                     (itself included), answers with their merge and repairs the replicas that lacked a record. A
 *                     quorum get that reaches fewer replicas answers with what it reached, flagged partial. Not with
 *                     iterative routing
 * @param readReplicas R of a quorum get, 1..k (a gateway refuses more); 0: the gateway's default, ⌊k/2⌋+1. Must be
 *                     0 with {@link Consistency#ONE}
 * @param filter       which values the get wants ({@link ValueFilter}): all ({@link ValueFilter#NONE}), one owner's,
 *                     or one owner's value; applied by the replica that reads its store, on every path and page
 */
public record GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge, boolean oneHop,
                         Consistency consistency, int readReplicas, ValueFilter filter) {

    /** Most gateways one get may use. */
    public static final int GATEWAYS_MAX = 8;
    /** Most questions an iterative get may keep in flight. */
    public static final int PARALLELISM_MAX = 16;
    /** Largest R a get may name: the largest k a node accepts (a leaf set of 32 per side, plus the node). */
    public static final int READ_REPLICAS_MAX = 33;
    /** Copies a hedged one-hop get sends beyond its gateways: its hedges go from one replica to the next. */
    public static final int ONE_HOP_HEDGES = 2;

    /**
     * @throws IllegalArgumentException for p, g or R out of range, one-hop or quorum with iterative routing, or R
     *                                  without quorum
     */
    public GetOptions {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(consistency, "consistency");
        Objects.requireNonNull(filter, "filter");
        require(parallelism >= 0 && parallelism <= PARALLELISM_MAX,
                "p must be between 1 and " + PARALLELISM_MAX + " (0 for the default), got " + parallelism);
        require(gateways >= 1 && gateways <= GATEWAYS_MAX,
                "gateways must be between 1 and " + GATEWAYS_MAX + ", got " + gateways);
        require(!(oneHop && routing == RoutingMode.ITERATIVE),
                "a one-hop get goes straight to a replica: it cannot be iterative");
        require(readReplicas >= 0 && readReplicas <= READ_REPLICAS_MAX,
                "r must be between 1 and " + READ_REPLICAS_MAX + " (0 for the default), got " + readReplicas);
        require(readReplicas == 0 || consistency == Consistency.QUORUM,
                "r is the replicas a quorum get reads: use it with consistency=quorum");
        // The iterative gateway takes the first answer of a node it asks; only a routed get reaches a replica that
        // reads the others.
        require(!(consistency == Consistency.QUORUM && routing == RoutingMode.ITERATIVE),
                "a quorum get is routed to a replica that reads the others: it cannot be iterative");
    }

    /** Options without a filter. */
    public GetOptions(RoutingMode routing, int parallelism, int gateways, boolean hedge, boolean oneHop,
                      Consistency consistency, int readReplicas) {
        this(routing, parallelism, gateways, hedge, oneHop, consistency, readReplicas, ValueFilter.NONE);
    }

    /**
     * The default: delay-aware routing through one gateway, hedged. In the simulator's OpenDHT workload this cuts
     * the p99 of a one-gateway get 3.2–4.4 times for about a fifth more messages (docs/experiments.md).
     */
    public static GetOptions defaults() {
        return builder().hedge(true).build();
    }

    /** One gateway, no hedge, the given routing. */
    public static GetOptions of(RoutingMode routing) {
        return builder().routing(routing).build();
    }

    /** A builder that starts from {@link RoutingMode#DEFAULT}, one gateway, no hedge, no one-hop, one replica. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from these options. */
    public Builder toBuilder() {
        return new Builder().routing(routing).parallelism(parallelism).gateways(gateways).hedge(hedge).oneHop(oneHop)
                .consistency(consistency, readReplicas).filter(filter);
    }

    public GetOptions withRouting(RoutingMode r) {
        return toBuilder().routing(r).build();
    }

    public GetOptions withParallelism(int p) {
        return toBuilder().parallelism(p).build();
    }

    public GetOptions withGateways(int g) {
        return toBuilder().gateways(g).build();
    }

    public GetOptions withHedge(boolean h) {
        return toBuilder().hedge(h).build();
    }

    public GetOptions withOneHop(boolean o) {
        return toBuilder().oneHop(o).build();
    }

    /**
     * A quorum get of {@code r} replicas (0: the gateway's default, ⌊k/2⌋+1); see {@link #consistency()}.
     *
     * @throws IllegalArgumentException for r out of 0..{@value #READ_REPLICAS_MAX}, or with iterative routing
     */
    public GetOptions withQuorum(int r) {
        return toBuilder().consistency(Consistency.QUORUM, r).build();
    }

    /** The same options with another {@link ValueFilter}. */
    public GetOptions withFilter(ValueFilter f) {
        return toBuilder().filter(f).build();
    }

    /** Read from one replica again (the default). */
    public GetOptions withConsistencyOne() {
        return toBuilder().consistency(Consistency.ONE, 0).build();
    }

    /**
     * What one copy of this get asks of its gateway when the sender races, hedges and routes one-hop itself (the Java
     * client): the same routing, p, consistency, R and filter, through that one gateway, unhedged, not one-hop.
     */
    public GetOptions oneCopy() {
        return toBuilder().gateways(1).hedge(false).oneHop(false).build();
    }

    /** Whether the get reads a quorum of replicas. */
    public boolean quorum() {
        return consistency == Consistency.QUORUM;
    }

    /**
     * R as the replica that serves the get is told it: 0 for a get answered by one replica, else R, or
     * {@code defaultR} (the gateway's ⌊k/2⌋+1) when the get names none.
     */
    public int readQuorum(int defaultR) {
        return !quorum() ? 0 : readReplicas > 0 ? readReplicas : defaultR;
    }

    /**
     * Copies the get may send at most: g, plus one if hedged, or plus {@link #ONE_HOP_HEDGES} for a hedged one-hop
     * get, whose hedges escalate from one replica to the next.
     */
    public int maxCopies() {
        return gateways + (!hedge ? 0 : oneHop ? ONE_HOP_HEDGES : 1);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builds {@link GetOptions}; the checks run at {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private RoutingMode routing = RoutingMode.DEFAULT;
        private int parallelism;
        private int gateways = 1;
        private boolean hedge;
        private boolean oneHop;
        private Consistency consistency = Consistency.ONE;
        private int readReplicas;
        private Bytes owner = Bytes.EMPTY;
        private Long valueId;

        private Builder() {
        }

        public Builder routing(RoutingMode r) {
            routing = r;
            return this;
        }

        /** The p of an iterative get; 0 for the default. */
        public Builder parallelism(int p) {
            parallelism = p;
            return this;
        }

        public Builder gateways(int g) {
            gateways = g;
            return this;
        }

        public Builder hedge(boolean h) {
            hedge = h;
            return this;
        }

        public Builder oneHop(boolean o) {
            oneHop = o;
            return this;
        }

        /** {@link Consistency#ONE} with R 0, or {@link Consistency#QUORUM} of R replicas (0: the default). */
        public Builder consistency(Consistency c, int r) {
            consistency = c;
            readReplicas = r;
            return this;
        }

        /** Only the values of this owner (an Ed25519 public key, 32 bytes); {@link Bytes#EMPTY}: any. */
        public Builder owner(Bytes o) {
            owner = Objects.requireNonNull(o, "owner");
            return this;
        }

        /** Only the owner's value of this id (unsigned); needs {@link #owner(Bytes)}. */
        public Builder valueId(long id) {
            valueId = id;
            return this;
        }

        /** The owner and value id of {@code f}, replacing any set before. */
        public Builder filter(ValueFilter f) {
            owner = f.owner();
            valueId = f.valueId();
            return this;
        }

        /**
         * @throws IllegalArgumentException as {@link GetOptions}' constructor, or for a value id without an owner or
         *                                  an owner that is not 32 bytes ({@link ValueFilter})
         */
        public GetOptions build() {
            return new GetOptions(routing, parallelism, gateways, hedge, oneHop, consistency, readReplicas,
                    new ValueFilter(owner, valueId));
        }
    }
}
