package io.rattan.node.cli;

import io.rattan.core.node.NodeConfig;

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
}
