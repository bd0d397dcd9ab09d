package io.rattan.sim.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
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

    /**
     * A gateway in a slow period serves each message 150 ms late, hop acks included; its per-hop timeouts (at most
     * a few hundred ms here) must not expire on acks that sit in its own queue, or it would re-route every get.
     */
    @Test
    void aSlowGatewayDoesNotTimeOutOnAcksWaitingInItsOwnQueue() {
        int gateway = 5;
        SlowNodeModel knobs = SlowNodeModel.none();
        List<SlowPeriod> periods = List.of(new SlowPeriod(gateway, 60 * SECOND, 3_600 * SECOND,
                new Distribution.Fixed(150)));
        WideAreaLatencyModel latency = new WideAreaLatencyModel(LatencyMatrix.planetLab(),
                HostAssignment.random(NODES, 490, 7), periods, knobs, 7);
        VirtualWorld world = new VirtualWorld(7, NodeConfig.defaults().withLeafSetHalf(4), latency);
        latency.attach(world.scheduler());
        world.addNodes(NODES);
        world.runFor(60 * SECOND);
        Address from = world.contact(gateway).address();
        int[] forwards = {0};
        world.network().observer((f, to, e) -> forwards[0] += f.equals(from)
                && e.body().type() == MessageType.GET_REQUEST ? 1 : 0);

        int routed = 0;
        for (int i = 0; i < 10; i++) {
            Id key = Id.ofName("slow-gateway-" + i);
            Bytes value = Bytes.utf8("v" + i);
            assertThat(((PutReply) world.request(0, new ClientPut(key, value, 3_600, Bytes.EMPTY))).status())
                    .isEqualTo(Status.OK);
            forwards[0] = 0;
            Message reply = world.request(gateway, ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE)));
            assertThat(((GetReply) reply).values()).extracting(v -> v.value()).containsExactly(value);
            assertThat(forwards[0]).as("get requests the slow gateway sent for key %d", i).isLessThanOrEqualTo(1);
            routed += forwards[0];
        }
        assertThat(routed).as("gets the gateway routed on rather than answered itself").isPositive();
    }

    @Test
    void theSameSeedReplaysTheSameWorld() {
        String first = run(2024);

        assertThat(run(2024)).isEqualTo(first);
        assertThat(run(2025)).isNotEqualTo(first);
    }
}
