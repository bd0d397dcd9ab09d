package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node that has just joined pings its routing-table entries deepest row first. Every node's top rows hold the same
 * few early nodes; when a crowd joined and each pinged row 0 first, those nodes' queues grew long enough that joins
 * routed through them timed out and were routed again, which doubled a 20,000-node simulator run's join traffic.
 * For the same reason the periodic table probes start at a random entry, not all at row 0.
 */
class JoinAnnounceOrderTest {

    private static final long MS = 1_000_000L;

    @Test
    void aJoinedNodePingsItsTableDeepestRowFirst() {
        LatencyModel latency = (from, to, r) -> 5 * MS + (long) (r.nextDouble() * 20 * MS);
        VirtualWorld world = new VirtualWorld(7, NodeConfig.defaults(), latency);
        assertThat(world.addNodesInWaves(400, 64)).isZero();
        world.runFor(Duration.ofSeconds(30).toNanos());

        Map<Address, Id> ids = new HashMap<>();
        for (int i = 0; i < world.size(); i++) {
            ids.put(world.contact(i).address(), world.contact(i).id());
        }
        // The pings sent at the instant of the first: the batch the root's answer releases. A hop's JOIN_INFO that
        // comes after the root's has its contacts pinged as they come (second-hand probes), not in that order.
        List<Address> pinged = new ArrayList<>();
        long[] batchAt = {-1};
        int joiner = world.size();
        Address[] joinerAddress = new Address[1];
        world.network().observer((from, to, e) -> {
            if (from.equals(joinerAddress[0]) && e.body() instanceof Ping) {
                long now = world.scheduler().nanoTime();
                if (batchAt[0] < 0) {
                    batchAt[0] = now;
                }
                if (now == batchAt[0]) {
                    pinged.add(to);
                }
            }
        });
        assertThat(world.addNode()).isEqualTo(joiner);
        joinerAddress[0] = world.contact(joiner).address();
        assertThat(world.runUntil(world.node(joiner)::isJoined, 10_000 * MS)).isTrue();

        // Runs until the event that completed the join, which sends the announcing pings.
        Id self = world.contact(joiner).id();
        List<Integer> rows = pinged.stream().map(a -> self.sharedPrefixLength(ids.get(a))).toList();
        assertThat(rows).as("rows of the pinged entries, in send order").hasSizeGreaterThan(8)
                .isSortedAccordingTo((a, b) -> Integer.compare(b, a));
        assertThat(rows.get(0)).isGreaterThan(rows.get(rows.size() - 1));
    }

    @Test
    void nodesThatJoinedTogetherProbeTheirTablesFromDifferentEntries() {
        LatencyModel latency = (from, to, r) -> 5 * MS + (long) (r.nextDouble() * 20 * MS);
        VirtualWorld world = new VirtualWorld(9, NodeConfig.defaults(), latency);
        assertThat(world.addNodesInWaves(1024, 512)).isZero();
        world.runFor(Duration.ofSeconds(5).toNanos());

        Map<Address, Id> ids = new HashMap<>();
        for (int i = 0; i < world.size(); i++) {
            ids.put(world.contact(i).address(), world.contact(i).id());
        }
        int[] pings = new int[2];
        world.network().observer((from, to, e) -> {
            if (e.body() instanceof Ping) {
                pings[0]++;
                pings[1] += ids.get(from).sharedPrefixLength(ids.get(to)) == 0 ? 1 : 0;
            }
        });
        world.runFor(Duration.ofSeconds(3).toNanos());

        // Row 0 is about half of each table here; had every node started at entry 0, a few tens of seconds after
        // joining all of them would still be probing row 0, the same few early nodes for everyone.
        assertThat(pings[0]).isGreaterThan(2000);
        assertThat((double) pings[1] / pings[0]).as("share of probes to row-0 entries").isLessThan(0.75);
    }
}
