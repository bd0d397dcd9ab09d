package io.rattan.node.behaviour;

import io.rattan.core.behaviour.ClusterBehaviourSuite;
import io.rattan.core.behaviour.ClusterHarness;
import io.rattan.core.node.NodeConfig;

/**
 * The behaviour suite on 12 real nodes: Netty over loopback, RocksDB on disk. A leaf set of 3 per side (6 of 11
 * other nodes) keeps the cluster from being a full mesh, so gets really route.
 */
class NettyBehaviourTest extends ClusterBehaviourSuite {

    @Override
    protected ClusterHarness start(int nodes, NodeConfig config) {
        return new NettyHarness(nodes, config);
    }

    @Override
    protected NodeConfig config() {
        return NodeConfig.defaults().withLeafSetHalf(3).withReplicas(4, 2).withPeriods(500, 1_000, 1_000)
                .withTimeouts(5_000, 1_000, 200, 2_000);
    }

    @Override
    protected int nodes() {
        return 12;
    }

    @Override
    protected int values() {
        return 1_000;
    }

    @Override
    protected int readsPerValue() {
        return 12;
    }

    @Override
    protected double minimumMeanHops() {
        return 0.5;
    }
}
