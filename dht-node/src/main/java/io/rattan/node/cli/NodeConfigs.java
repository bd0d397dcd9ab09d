package io.rattan.node.cli;

import io.rattan.api.Address;
import io.rattan.core.node.NodeConfig;
import java.util.List;

/** Builds a {@link NodeConfig} from the few tunables the command line exposes; the rest keep their defaults. */
final class NodeConfigs {

    /** Copies per value unless told otherwise (shrunk to fit a small leaf set). */
    static final int REPLICAS_DEFAULT = 4;
    /** Replicas that must hold a put before it is acknowledged unless told otherwise (shrunk to fit). */
    static final int WRITE_QUORUM_DEFAULT = 2;

    private NodeConfigs() {
    }

    /**
     * The defaults with these overrides. When {@code replicas} is not given it is {@value #REPLICAS_DEFAULT}, or
     * {@code leafSetHalf + 1} if that is smaller (every replica set must fit in a leaf set); likewise the write
     * quorum is {@value #WRITE_QUORUM_DEFAULT} or the replica count if smaller.
     *
     * @throws IllegalArgumentException with the reason, when the combination is invalid
     */
    static NodeConfig of(int leafSetHalf, Integer replicas, Integer writeQuorum) {
        if (leafSetHalf < 1) {
            throw new IllegalArgumentException("--leaf-set-half must be at least 1, got " + leafSetHalf);
        }
        int k = replicas != null ? replicas : Math.min(REPLICAS_DEFAULT, leafSetHalf + 1);
        int w = writeQuorum != null ? writeQuorum : Math.min(WRITE_QUORUM_DEFAULT, k);
        NodeConfig base = NodeConfig.defaults();
        try {
            return base.withLeafSetHalf(Math.max(leafSetHalf, base.leafSetHalf())).withReplicas(k, w)
                    .withLeafSetHalf(leafSetHalf);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid node settings (leaf set " + leafSetHalf + " per side, "
                    + k + " replicas, write quorum " + w + "): " + e.getMessage());
        }
    }

    /**
     * {@code config} with the client-facing limits of {@code rattan node}: the largest value (a get page always holds
     * at least one) and the longest TTL.
     */
    static NodeConfig withClientLimits(NodeConfig config, int valueBytesMax, int ttlSecondsMax) {
        if (valueBytesMax < 1 || valueBytesMax > NodeConfig.WIRE_VALUE_BYTES_MAX) {
            throw new IllegalArgumentException("--value-bytes-max must be 1.." + NodeConfig.WIRE_VALUE_BYTES_MAX
                    + ", got " + valueBytesMax);
        }
        if (ttlSecondsMax < 1) {
            throw new IllegalArgumentException("--ttl-seconds-max must be at least 1, got " + ttlSecondsMax);
        }
        return config.withLimits(valueBytesMax, ttlSecondsMax, config.pageValuesMax(),
                Math.max(config.pageBytesMax(), valueBytesMax));
    }

    /** {@code config} with {@code rattan node}'s timeouts, checked with the flags' names. */
    static NodeConfig withTimeouts(NodeConfig config, long requestMillis, long rtoInitialMillis, long rtoMinMillis,
                                   long rtoMaxMillis) {
        if (requestMillis < 1) {
            throw new IllegalArgumentException("--request-timeout-ms must be at least 1, got " + requestMillis);
        }
        if (rtoMinMillis < 1 || rtoMinMillis > rtoInitialMillis || rtoInitialMillis > rtoMaxMillis) {
            throw new IllegalArgumentException("need 0 < --rto-min-ms <= --rto-initial-ms <= --rto-max-ms, got "
                    + rtoMinMillis + ", " + rtoInitialMillis + ", " + rtoMaxMillis);
        }
        return config.withTimeouts(requestMillis, rtoInitialMillis, rtoMinMillis, rtoMaxMillis);
    }

    /**
     * A one-node overlay's settings ({@code --single-node}): one copy, acknowledged alone. The node cannot tell a
     * small overlay from missing neighbours, so the operator says so; a node that joins others, or sets k or W
     * itself, is no single node.
     *
     * @throws IllegalArgumentException with the reason, when the combination is invalid
     */
    static NodeConfig singleNode(int leafSetHalf, Integer replicas, Integer writeQuorum, List<Address> bootstrap) {
        if (!bootstrap.isEmpty()) {
            throw new IllegalArgumentException("--single-node founds its own overlay: it takes no --bootstrap");
        }
        if ((replicas != null && replicas != 1) || (writeQuorum != null && writeQuorum != 1)) {
            throw new IllegalArgumentException("--single-node keeps one copy: it takes no --replicas or "
                    + "--write-quorum other than 1");
        }
        return of(leafSetHalf, 1, 1);
    }

    /**
     * The settings of a local cluster of {@code nodes} nodes: as {@link #of} with the defaults, except that W is at
     * most the number of nodes, which the cluster knows (a one-node {@code local} or {@code demo} is a trial).
     */
    static NodeConfig forCluster(int leafSetHalf, int nodes) {
        return of(leafSetHalf, null, nodes < WRITE_QUORUM_DEFAULT ? Integer.valueOf(nodes) : null);
    }
}
