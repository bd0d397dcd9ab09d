package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A join whose root is very slow (alive, but late on every message) still completes. Before, such a join was dropped
 * and retried for as long as the root stayed slow, which in the simulator's slow periods (30 minutes on average)
 * kept a node out of the overlay for good. Two rules fix it, one case each: the closest node that answers serves the
 * join in a silent root's place, as Pastry routes around a failed root; and a root's answer that arrives after the
 * joiner's attempt timed out still completes the join.
 */
class JoinPastSlowRootTest {

    private static final long MS = 1_000_000L;
    private static final NodeConfig CONFIG = NodeConfig.defaults().withLeafSetHalf(4);

    private final Set<Address> slow = new HashSet<>();

    /** Builds 40 nodes, adds a joiner and makes its root slow; returns the joiner. */
    private int joinerWithSlowRoot(VirtualWorld world, int[] root) {
        world.addNodes(40);
        world.runFor(Duration.ofMinutes(1).toNanos());
        int joiner = world.addNode();
        Id id = world.contact(joiner).id();
        root[0] = -1;
        for (int i = 0; i < joiner; i++) {
            if (root[0] < 0 || world.contact(i).id().isCloserTo(id, world.contact(root[0]).id())) {
                root[0] = i;
            }
        }
        // The joiner's first message is already on its way to a bootstrap; everything after it meets a slow root.
        slow.add(world.contact(root[0]).address());
        return joiner;
    }

    private LatencyModel latency(long extraMillis) {
        return (from, to, r) -> {
            long base = 5 * MS + (long) (r.nextDouble() * 20 * MS);
            return slow.contains(from) || slow.contains(to) ? base + extraMillis * MS : base;
        };
    }

    @Test
    void aSilentRootsJoinIsServedByTheClosestNodeThatAnswersWithinOneAttempt() {
        VirtualWorld world = new VirtualWorld(3, CONFIG, latency(60_000));
        int[] root = new int[1];
        int joiner = joinerWithSlowRoot(world, root);
        // Within the first attempt's timeout: no retry and no waiting for the root to be declared dead.
        boolean joined = world.runUntil(world.node(joiner)::isJoined, CONFIG.requestTimeoutMillis() * MS);
        assertThat(joined).as("joined within one join attempt although its root (node %d) is silent", root[0])
                .isTrue();
        // It joined next to its root: the node that served the join hands over its leaf set, the root included. A
        // contact named second hand enters only once it has answered a ping (issue 18), and the silent root's pong
        // takes two minutes (60 s each way): it enters then, not with the join.
        Id rootId = world.contact(root[0]).id();
        assertThat(world.node(joiner).status().leafSet()).extracting(c -> c.id()).doesNotContain(rootId);
        assertThat(world.runUntil(() -> world.node(joiner).status().leafSet().stream()
                .anyMatch(c -> c.id().equals(rootId)), Duration.ofMinutes(3).toNanos()))
                .as("the root in the joiner's leaf set once it answered").isTrue();
    }

    @Test
    void aRootsAnswerThatComesAfterTheAttemptTimedOutStillJoins() {
        // Only the root's messages to the joiner are late (6 s, past the 5 s join timeout, on every attempt): the
        // join reaches the root in time and the root answers, but each answer comes after its attempt gave up.
        Address[] link = new Address[2];
        LatencyModel latency = (from, to, r) -> {
            long base = 5 * MS + (long) (r.nextDouble() * 20 * MS);
            return from.equals(link[0]) && to.equals(link[1]) ? base + 6_000 * MS : base;
        };
        VirtualWorld world = new VirtualWorld(3, CONFIG, latency);
        int[] root = new int[1];
        int joiner = joinerWithSlowRoot(world, root);
        slow.clear();
        link[0] = world.contact(root[0]).address();
        link[1] = world.contact(joiner).address();
        boolean joined = world.runUntil(world.node(joiner)::isJoined, Duration.ofMinutes(2).toNanos());
        assertThat(joined).as("joined within 2 virtual minutes although its root's (node %d) answers come late",
                root[0]).isTrue();
    }
}
