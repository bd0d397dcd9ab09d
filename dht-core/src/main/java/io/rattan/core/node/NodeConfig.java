package io.rattan.core.node;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.MembershipMessages.ClusterTerms;
import io.rattan.core.msg.NamespaceDefinition;

/**
 * A node's tunables, validated here. The real node and the simulator build nodes from the same record; build one with
 * {@link #builder()} or change one with {@link #toBuilder()}.
 *
 * @param leafSetHalf                leaf-set members on each side of the node (L/2)
 * @param replicas                   k: copies of each value, on the k nodes closest to its key
 * @param writeQuorum                W: a put is acknowledged once this many replicas hold it
 * @param candidatesPerSlot          routing-table candidates kept per slot, lowest RTT preferred
 * @param valueBytesMax              largest value accepted
 * @param ttlSecondsMax              longest TTL accepted
 * @param pageValuesMax              most values in one get reply
 * @param pageBytesMax               most value bytes in one get reply (at least one value is always returned)
 * @param leafExchangeIntervalMillis period of leaf-set exchange with one neighbour per side
 * @param antiEntropyIntervalMillis  period of the anti-entropy round with one random leaf-set neighbour
 * @param purgeIntervalMillis        period of the bulk purge of expired records
 * @param requestTimeoutMillis       how long a gateway waits for a client request to complete
 * @param rtoInitialMillis           per-peer retransmission timeout before any RTT sample
 * @param rtoMinMillis               floor of the per-peer timeout (absorbs GC pauses and loaded CI machines)
 * @param rtoMaxMillis               cap of the per-peer timeout
 * @param digestEntriesMax           most entries in one anti-entropy digest or replica push
 * @param idsPerIp                   most ids from one host (an IPv4 address, an IPv6 /64) in the leaf set and in the
 *                                   routing table, so that one host cannot surround a key or a node; ids at
 *                                   this node's own host are not counted (a local cluster shares one address);
 *                                   -1: no bound. See docs/security.md.
 * @param watch                      the bounds of watches: leases, and how many a gateway and a replica hold
 * @param namespace                  the namespace these settings serve: {@code default} for the node's own; a
 *                                   namespace's replicas, W and limits are its definition's (owned values sign it)
 * @param protocolVersion            the protocol version the node speaks ({@link MessageCodec#VERSION} unless told
 *                                   to speak the one before, during a rolling upgrade)
 * @param putAcksRequired            a put through this gateway is acknowledged only on W replicas' own acks to it
 *                                   ({@code AttributedWrite}); false only while nodes of protocol 13, which send
 *                                   none, are in the cluster (a rolling upgrade): the root's word is then taken
 * @param removeAcksRequired         a remove through this gateway is acknowledged only on W replicas' own acks of
 *                                   its tombstone; false only while nodes of protocol 14, which send none, are in the
 *                                   cluster (a rolling upgrade): the root's word is then taken
 * @param origin                     what this node, as a key's root, takes from one put's origin on the peer port
 */
public record NodeConfig(
        int leafSetHalf,
        int replicas,
        int writeQuorum,
        int candidatesPerSlot,
        int valueBytesMax,
        int ttlSecondsMax,
        int pageValuesMax,
        int pageBytesMax,
        long leafExchangeIntervalMillis,
        long antiEntropyIntervalMillis,
        long purgeIntervalMillis,
        long requestTimeoutMillis,
        long rtoInitialMillis,
        long rtoMinMillis,
        long rtoMaxMillis,
        int digestEntriesMax,
        int idsPerIp,
        WatchLimits watch,
        String namespace,
        int protocolVersion,
        boolean putAcksRequired,
        boolean removeAcksRequired,
        OriginLimits origin) {

    /** The default of {@link #idsPerIp}: two nodes per host, as an operator may run, and no more. */
    public static final int IDS_PER_IP_DEFAULT = 2;

    public static final int WIRE_VALUE_BYTES_MAX = MessageCodec.VALUE_BYTES_MAX;

    public NodeConfig {
        require(leafSetHalf >= 1 && leafSetHalf <= 32, "leafSetHalf must be 1..32");
        require(replicas >= 1 && replicas <= leafSetHalf + 1,
                "replicas (k) must be 1..leafSetHalf+1 so that every replica set lies inside a leaf set");
        require(writeQuorum >= 1 && writeQuorum <= replicas, "writeQuorum must be 1..replicas");
        require(candidatesPerSlot >= 1 && candidatesPerSlot <= 8, "candidatesPerSlot must be 1..8");
        require(valueBytesMax >= 1 && valueBytesMax <= WIRE_VALUE_BYTES_MAX, "valueBytesMax must be 1..65536");
        require(ttlSecondsMax >= 1, "ttlSecondsMax must be positive");
        require(pageValuesMax >= 1 && pageValuesMax <= 4096, "pageValuesMax must be 1..4096");
        require(pageBytesMax >= valueBytesMax, "pageBytesMax must hold at least one value");
        require(leafExchangeIntervalMillis > 0 && antiEntropyIntervalMillis > 0 && purgeIntervalMillis > 0,
                "maintenance periods must be positive");
        require(requestTimeoutMillis > 0, "requestTimeoutMillis must be positive");
        require(rtoMinMillis > 0 && rtoMinMillis <= rtoInitialMillis && rtoInitialMillis <= rtoMaxMillis,
                "need 0 < rtoMin <= rtoInitial <= rtoMax");
        require(digestEntriesMax >= 1 && digestEntriesMax <= 4096, "digestEntriesMax must be 1..4096");
        require(idsPerIp == -1 || idsPerIp >= 1, "idsPerIp must be -1 (no bound) or at least 1");
        require(watch != null, "watch limits must be given");
        require(origin != null, "origin limits must be given");
        require(NamespaceDefinition.validName(namespace), "namespace must be a namespace's name");
        require(MessageCodec.isSpoken(protocolVersion), "protocolVersion must be " + MessageCodec.VERSION_OLDEST
                + ".." + MessageCodec.VERSION);
    }

    /**
     * Production defaults: leaf set 8 per side, k = 4, W = 2, 1 KiB values, 7-day TTL, at most
     * {@value #IDS_PER_IP_DEFAULT} ids per host in the leaf set and in the whole routing table.
     */
    public static NodeConfig defaults() {
        return builder().build();
    }

    /** What every node of a cluster must share with this one: k, W and the value limits (a joiner names them). */
    public ClusterTerms terms() {
        return new ClusterTerms(replicas, writeQuorum, valueBytesMax, ttlSecondsMax);
    }

    /** A builder that starts from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** These settings with at most {@code n} ids per host in the leaf set and in each table slot (-1: no bound). */
    public NodeConfig withIdsPerIp(int n) {
        return toBuilder().idsPerIp(n).build();
    }

    /**
     * R of a quorum get that names none: ⌊k/2⌋+1, a majority of the key's replicas. With the default k = 4 and
     * W = 2, R = 3 and R + W &gt; k: the replicas read and the replicas a put was acknowledged by share at least one
     * node (while the replica set is the one the put wrote to; docs/durability.md).
     */
    public int readQuorumDefault() {
        return replicas / 2 + 1;
    }

    public NodeConfig withLeafSetHalf(int v) {
        return toBuilder().leafSetHalf(v).build();
    }

    public NodeConfig withReplicas(int k, int w) {
        return toBuilder().replicas(k, w).build();
    }

    /**
     * How long a key stays unsettled at a replica after its replica set changed in the replica's view, or after the
     * node started or its store was in a fault: 10 leaf-set exchange periods (10 s at the defaults). Meanwhile the
     * replica answers a get from itself and the two next replicas (docs/node.md, "Settled and unsettled keys").
     */
    public long settlingMillis() {
        return 10 * leafExchangeIntervalMillis;
    }

    public NodeConfig withPeriods(long leafExchangeMillis, long antiEntropyMillis, long purgeMillis) {
        return toBuilder().periods(leafExchangeMillis, antiEntropyMillis, purgeMillis).build();
    }

    public NodeConfig withTimeouts(long requestMillis, long rtoInitial, long rtoMin, long rtoMax) {
        return toBuilder().timeouts(requestMillis, rtoInitial, rtoMin, rtoMax).build();
    }

    public NodeConfig withLimits(int valueBytes, int ttlSeconds, int pageValues, int pageBytes) {
        return toBuilder().limits(valueBytes, ttlSeconds, pageValues, pageBytes).build();
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builds a {@link NodeConfig}; every setting starts at its default, and the checks run at {@link #build()}. */
    public static final class Builder {
        private int leafSetHalf = 8;
        private int replicas = 4;
        private int writeQuorum = 2;
        private int candidatesPerSlot = 3;
        private int valueBytesMax = 1024;
        private int ttlSecondsMax = 7 * 24 * 3600;
        private int pageValuesMax = 256;
        private int pageBytesMax = 256 * 1024;
        private long leafExchangeIntervalMillis = 1_000;
        private long antiEntropyIntervalMillis = 5_000;
        private long purgeIntervalMillis = 10_000;
        private long requestTimeoutMillis = 5_000;
        private long rtoInitialMillis = 1_000;
        private long rtoMinMillis = 100;
        private long rtoMaxMillis = 5_000;
        private int digestEntriesMax = 512;
        private int idsPerIp = IDS_PER_IP_DEFAULT;
        private WatchLimits watch = WatchLimits.DEFAULTS;
        private String namespace = NamespaceDefinition.DEFAULT;
        private int protocolVersion = MessageCodec.VERSION;
        private boolean putAcksRequired = true;
        private boolean removeAcksRequired = true;
        private OriginLimits origin = OriginLimits.DEFAULTS;

        private Builder() {
        }

        private Builder(NodeConfig c) {
            leafSetHalf = c.leafSetHalf;
            replicas = c.replicas;
            writeQuorum = c.writeQuorum;
            candidatesPerSlot = c.candidatesPerSlot;
            valueBytesMax = c.valueBytesMax;
            ttlSecondsMax = c.ttlSecondsMax;
            pageValuesMax = c.pageValuesMax;
            pageBytesMax = c.pageBytesMax;
            leafExchangeIntervalMillis = c.leafExchangeIntervalMillis;
            antiEntropyIntervalMillis = c.antiEntropyIntervalMillis;
            purgeIntervalMillis = c.purgeIntervalMillis;
            requestTimeoutMillis = c.requestTimeoutMillis;
            rtoInitialMillis = c.rtoInitialMillis;
            rtoMinMillis = c.rtoMinMillis;
            rtoMaxMillis = c.rtoMaxMillis;
            digestEntriesMax = c.digestEntriesMax;
            idsPerIp = c.idsPerIp;
            watch = c.watch;
            namespace = c.namespace;
            protocolVersion = c.protocolVersion;
            putAcksRequired = c.putAcksRequired;
            removeAcksRequired = c.removeAcksRequired;
            origin = c.origin;
        }

        public Builder leafSetHalf(int v) {
            leafSetHalf = v;
            return this;
        }

        /** k copies of each value, acknowledged once W hold it. */
        public Builder replicas(int k, int w) {
            replicas = k;
            writeQuorum = w;
            return this;
        }

        public Builder candidatesPerSlot(int v) {
            candidatesPerSlot = v;
            return this;
        }

        /** Largest value, longest TTL, most values and value bytes in one get reply. */
        public Builder limits(int valueBytes, int ttlSeconds, int pageValues, int pageBytes) {
            valueBytesMax = valueBytes;
            ttlSecondsMax = ttlSeconds;
            pageValuesMax = pageValues;
            pageBytesMax = pageBytes;
            return this;
        }

        /** The periods of leaf-set exchange, anti-entropy and the purge of expired records. */
        public Builder periods(long leafExchangeMillis, long antiEntropyMillis, long purgeMillis) {
            leafExchangeIntervalMillis = leafExchangeMillis;
            antiEntropyIntervalMillis = antiEntropyMillis;
            purgeIntervalMillis = purgeMillis;
            return this;
        }

        /** The client request timeout and the per-peer timeout's initial value, floor and cap. */
        public Builder timeouts(long requestMillis, long rtoInitial, long rtoMin, long rtoMax) {
            requestTimeoutMillis = requestMillis;
            rtoInitialMillis = rtoInitial;
            rtoMinMillis = rtoMin;
            rtoMaxMillis = rtoMax;
            return this;
        }

        public Builder digestEntriesMax(int v) {
            digestEntriesMax = v;
            return this;
        }

        /** Most ids of one host in the leaf set and each table slot; -1: no bound. */
        public Builder idsPerIp(int v) {
            idsPerIp = v;
            return this;
        }

        /** The namespace these settings serve. */
        public Builder namespace(String v) {
            namespace = v;
            return this;
        }

        /**
         * The protocol version the node speaks: {@link MessageCodec#VERSION}, or an older one down to
         * {@link MessageCodec#VERSION_OLDEST}.
         */
        public Builder protocolVersion(int v) {
            protocolVersion = v;
            return this;
        }

        /** Whether a put through this gateway waits for W replicas' own acks (true by default). */
        public Builder putAcksRequired(boolean v) {
            putAcksRequired = v;
            return this;
        }

        /** Whether a remove through this gateway waits for W replicas' own acks of its tombstone (true by default). */
        public Builder removeAcksRequired(boolean v) {
            removeAcksRequired = v;
            return this;
        }

        /** What this node, as a key's root, takes from one put's origin. */
        public Builder origin(OriginLimits v) {
            origin = v;
            return this;
        }

        /** The bounds of watches. */
        public Builder watch(WatchLimits v) {
            watch = v;
            return this;
        }

        /** @throws IllegalArgumentException when the settings do not fit together (see {@link NodeConfig}) */
        public NodeConfig build() {
            return new NodeConfig(leafSetHalf, replicas, writeQuorum, candidatesPerSlot, valueBytesMax, ttlSecondsMax,
                    pageValuesMax, pageBytesMax, leafExchangeIntervalMillis, antiEntropyIntervalMillis,
                    purgeIntervalMillis, requestTimeoutMillis, rtoInitialMillis, rtoMinMillis, rtoMaxMillis,
                    digestEntriesMax, idsPerIp, watch, namespace, protocolVersion, putAcksRequired,
                    removeAcksRequired, origin);
        }
    }
}
