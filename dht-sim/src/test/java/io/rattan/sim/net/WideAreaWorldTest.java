package io.rattan.sim.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The model drives core's virtual world: nodes join over PlanetLab delays and slow nodes, reproducibly. */
class WideAreaWorldTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 32;

    private static String run(long seed) {
        SlowNodeModel knobs = SlowNodeModel.defaults();
        List<SlowPeriod> periods = SlowSchedule.generate(knobs, NODES, 3_600 * SECOND, seed);
        WideAreaLatencyModel latency = new WideAreaLatencyModel(LatencyMatrix.planetLab(),
                HostAssignment.random(NODES, 490, seed), periods, knobs, seed);
        VirtualWorld world = new VirtualWorld(seed, NodeConfig.defaults().withLeafSetHalf(4), latency);
        latency.attach(world.scheduler());

        world.addNodes(NODES);
        world.runFor(30 * SECOND);

        for (int i = 0; i < NODES; i++) {
            assertThat(world.node(i).isJoined()).as("node %d joined", i).isTrue();
        }
        assertThat(world.network().delivered()).isGreaterThan(NODES * 10L);
        return Long.toHexString(world.network().traceHash()) + " " + world.scheduler().executed();
    }

    @Test
    void theSameSeedReplaysTheSameWorld() {
        String first = run(2024);

        assertThat(run(2024)).isEqualTo(first);
        assertThat(run(2025)).isNotEqualTo(first);
    }
}
