package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Routing decisions, not latencies: on 200 nodes where 10 answer 300 ms late, delay-aware gets stop going through
 * the slow nodes while greedy gets keep doing so, and once a node heals delay-aware routing uses it again.
 */
class DelayAwareRoutingTest {

    private static final long MS = 1_000_000L;

    private final Set<Integer> slow = new HashSet<>();
    private final List<Id> keys = new ArrayList<>();
    private final Set<Id> slowIds = new HashSet<>();
    private final Map<RoutingMode, int[]> forwards = new EnumMap<>(RoutingMode.class);

    private final class Counter implements NodeListener {
        @Override
        public void getForwarded(RoutingMode mode, Contact next, long srttNanos) {
            int[] c = forwards.computeIfAbsent(mode, m -> new int[2]);
            c[0]++;
            if (slowIds.contains(next.id())) {
                c[1]++;
            }
        }
    }

    private static int index(Address a) {
        return a.port() - 1;
    }

    @Test
    void delayAwareGetsRouteAroundSlowNodesAndComeBackWhenTheyHeal() {
        LatencyModel latency = (from, to, r) -> {
            long base = 5 * MS + (long) (r.nextDouble() * 40 * MS);
            boolean late = slow.contains(index(from)) || slow.contains(index(to));
            return late ? base + 300 * MS : base;
        };
        VirtualWorld world = new VirtualWorld(11, NodeConfig.defaults().withLeafSetHalf(4), latency, new Counter());
        world.addNodes(200);
        SplittableRandom random = new SplittableRandom(5);
        while (slow.size() < 10) {
            int i = random.nextInt(world.size());
            slow.add(i);
            slowIds.add(world.contact(i).id());
        }
        // Gets look up keys that hold values, as the study's workload did: for an absent key every path must end
        // at the root, slow or not.
        for (int i = 0; i < 300; i++) {
            Id key = Id.random(random);
            Message put = world.request(random.nextInt(world.size()),
                    new ClientPut(key, Bytes.utf8("value " + i), 3600, Bytes.EMPTY));
            assertThat(put).isInstanceOf(PutReply.class);
            keys.add(key);
        }
        // Let every node measure its neighbours with the slow nodes slow.
        world.runFor(Duration.ofMinutes(3).toNanos());

        double greedy = shareThroughSlow(world, RoutingMode.GREEDY, random);
        double delayAware = shareThroughSlow(world, RoutingMode.DELAY_AWARE, random);
        // Greedy still passes slow nodes (1.9% of forwards with range-digest repair's traffic, above 2% before: the
        // RTT samples that shape the tables moved); the claim is the next line's tenfold difference.
        assertThat(greedy).as("greedy forwards through slow nodes").isGreaterThan(0.01);
        assertThat(delayAware).as("delay-aware vs greedy share").isLessThanOrEqualTo(greedy / 10);

        // Heal them: with periodic probing, delay-aware routing trusts them again.
        slow.clear();
        world.runFor(Duration.ofMinutes(10).toNanos());
        double healed = shareThroughSlow(world, RoutingMode.DELAY_AWARE, random);
        assertThat(healed).as("delay-aware share through the healed nodes").isGreaterThan(greedy / 3);
    }

    /** Runs gets for random keys in one mode; returns the share of forwards that went to a slow node. */
    private double shareThroughSlow(VirtualWorld world, RoutingMode mode, SplittableRandom random) {
        forwards.remove(mode);
        for (int i = 0; i < 2_000; i++) {
            // Healthy gateways: from a slow node every neighbour looks slow, and its own delay is not a routing choice.
            int gateway = random.nextInt(world.size());
            while (slowIds.contains(world.contact(gateway).id())) {
                gateway = random.nextInt(world.size());
            }
            Message reply = world.request(gateway, ClientGet.of(keys.get(random.nextInt(keys.size())), GetOptions.of(mode)));
            assertThat(reply).isInstanceOf(GetReply.class);
            assertThat(((GetReply) reply).values()).hasSize(1);
        }
        int[] c = forwards.get(mode);
        return (double) c[1] / c[0];
    }
}
