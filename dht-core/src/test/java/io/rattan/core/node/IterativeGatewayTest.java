package io.rattan.core.node;

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
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Iterative gets in virtual time: one whose every candidate answers late past its RTO, though well within the request
 * timeout (once all were asked, the gateway asks the closest again with the request timeout, and they answer); and
 * gets of keys in a small ring's gap wider than half of it, which the key's root answers.
 */
class IterativeGatewayTest {

    private static final long MILLI = 1_000_000L;
    private static final long SLOW_NANOS = 600 * MILLI;

    @Test
    void anIterativeGetWhoseCandidatesAllAnswerPastTheirRtoStillFindsTheValue() {
        // Answers from the nodes in slow come SLOW_NANOS late, as from JVMs stalled on a loaded machine.
        Set<Address> slow = new HashSet<>();
        NodeConfig config = NodeConfig.defaults().withReplicas(4, 2);
        VirtualWorld world = new VirtualWorld(3, config, (from, to, random) -> slow.contains(from) ? SLOW_NANOS
                : 5 * MILLI);
        world.addNodes(30);
        Id key = Id.ofName("late-candidates");
        Bytes value = Bytes.utf8("found late");
        Message put = world.request(5, new ClientPut(key, value, 3600, Bytes.EMPTY));
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
        world.runFor(Math.max(5_000L, config.settlingMillis()) * MILLI);

        int gateway = 0;
        for (int i = 0; i < world.size(); i++) {
            if (i != gateway) {
                slow.add(world.contact(i).address());
            }
        }
        // The gateway learned RTTs of 10 ms, so its RTOs are at the 100 ms floor: 600 ms is late past every one.
        Message reply = world.request(gateway, new ClientGet(key, 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3)));
        assertThat(reply).as("every candidate late past its RTO").isInstanceOf(GetReply.class);
        assertThat(((GetReply) reply).status()).isEqualTo(Status.OK);
        assertThat(((GetReply) reply).values()).extracting(v -> v.value()).containsExactly(value);
    }

    /**
     * 8 nodes, L/2 = 2, k = 3 (the smallest cluster a bench runs): with world seed 44 the ring has a gap of 0.539 of
     * it, and neither node beside it sees past the keys in it (LeafSet#seesPast). Each key's root answers them, as
     * a routed get's does, whether it is the gateway itself or a node the gateway asks. Before, 25 of these 40 gets
     * failed with 503 "no candidate near the key answered".
     */
    @Test
    void keysInAGapWiderThanHalfTheRingAreAnsweredByTheirRoot() {
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
        VirtualWorld world = new VirtualWorld(44, config, (from, to, random) -> 5 * MILLI);
        world.addNodes(8);
        world.runFor(Math.max(5_000L, config.settlingMillis()) * MILLI);
        assertThat(widestGap(world)).as("the ring's widest gap, a fraction of it").isGreaterThan(0.5);

        for (int i = 0; i < 40; i++) {
            Id key = Id.ofName("gap-" + i);
            Bytes value = Bytes.utf8("in the gap " + i);
            assertThat(((PutReply) world.request(0, new ClientPut(key, value, 3600, Bytes.EMPTY))).status())
                    .isEqualTo(Status.OK);
            Message reply = world.request(i % world.size(), new ClientGet(key, 0, Bytes.EMPTY, false,
                    GetOptions.of(RoutingMode.ITERATIVE)));
            assertThat(reply).as("key %d's iterative get", i).isInstanceOf(GetReply.class);
            assertThat(((GetReply) reply).values()).extracting(v -> v.value()).containsExactly(value);
        }
    }

    private static double widestGap(VirtualWorld world) {
        List<Double> at = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            at.add(world.contact(i).id().toDouble() / Math.pow(2, 160));
        }
        at.sort(null);
        double widest = 1 - at.get(at.size() - 1) + at.get(0);
        for (int i = 1; i < at.size(); i++) {
            widest = Math.max(widest, at.get(i) - at.get(i - 1));
        }
        return widest;
    }
}
