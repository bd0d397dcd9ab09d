package io.rattan.core.behaviour;

import io.rattan.core.node.NodeConfig;

/**
 * The behaviour suite in the virtual world with every node's store work (writes, scans, repair reads, purges) run
 * 3 ms of virtual time after it is submitted and completed on the node's loop then, as on a real node's store thread:
 * the node serves other input while its writes and scans wait, and its puts, removes, repair and hand-off must still
 * be right. The plain suite ({@link VirtualWorldBehaviourTest}) runs store work where it is submitted.
 */
class DeferredStoreBehaviourTest extends ClusterBehaviourSuite {

    private static final long STORE_DELAY_NANOS = 3_000_000L;

    @Override
    protected ClusterHarness start(int nodes, NodeConfig config) {
        return new VirtualHarness(7, nodes, config, STORE_DELAY_NANOS);
    }

    @Override
    protected int nodes() {
        return 300;
    }

    @Override
    protected int values() {
        return 300;
    }

    @Override
    protected int readsPerValue() {
        return 20;
    }

    /** Routing is not what this variant tests; the plain suite holds the 1.5 its topology gives just over. */
    @Override
    protected double minimumMeanHops() {
        return 1.4;
    }
}
