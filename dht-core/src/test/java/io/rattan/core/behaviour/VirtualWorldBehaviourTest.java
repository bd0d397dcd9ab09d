package io.rattan.core.behaviour;

import io.rattan.core.node.NodeConfig;

/** The behaviour suite on 500 nodes in the virtual world. */
class VirtualWorldBehaviourTest extends ClusterBehaviourSuite {

    @Override
    protected ClusterHarness start(int nodes, NodeConfig config) {
        return new VirtualHarness(7, nodes, config);
    }

    @Override
    protected int nodes() {
        return 500;
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
        return 2.0;
    }
}
