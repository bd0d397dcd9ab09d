package io.rattan.core.behaviour;

import io.rattan.core.node.NodeConfig;

/**
 * The behaviour suite on 300 nodes in the virtual world. With k = 4 and the first replica answering, gets take
 * just over 1.5 overlay hops here (Pastry's log16 N only passes 2 near a thousand nodes). At 200 nodes they took
 * about 1.6 until table slots came to be filled from pong suggestions, and 1.47 since: fuller tables, shorter routes.
 */
class VirtualWorldBehaviourTest extends ClusterBehaviourSuite {

    @Override
    protected ClusterHarness start(int nodes, NodeConfig config) {
        return new VirtualHarness(7, nodes, config);
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

    @Override
    protected double minimumMeanHops() {
        return 1.5;
    }
}
