package io.rattan.core.behaviour;

import io.rattan.core.node.NodeConfig;

/**
 * The behaviour suite on 200 nodes in the virtual world. With k = 4 and the first replica answering, gets take
 * about 1.6 overlay hops here (1.8 at 500 nodes; Pastry's log16 N only passes 2 near a thousand nodes).
 */
class VirtualWorldBehaviourTest extends ClusterBehaviourSuite {

    @Override
    protected ClusterHarness start(int nodes, NodeConfig config) {
        return new VirtualHarness(7, nodes, config);
    }

    @Override
    protected int nodes() {
        return 200;
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
