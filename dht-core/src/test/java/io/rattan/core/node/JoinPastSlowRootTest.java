package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.id.Id;
import io.rattan.core.net.Address;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A join whose root is very slow (alive, but every message to or from it takes far longer than any timeout) still
 * completes: the closest node that answers serves the join in the root's place, as Pastry routes around a failed
 * root. Before, such a join was dropped and retried for as long as the root stayed slow, which in the simulator's
 * slow periods (30 minutes on average) kept a node out of the overlay for good.
 */
class JoinPastSlowRootTest {

    private static final long MS = 1_000_000L;

    private final Set<Address> slow = new HashSet<>();

    @Test
    void aJoinWhoseRootIsSlowCompletesThroughTheClosestNodeThatAnswers() {
        LatencyModel latency = (from, to, r) -> {
            long base = 5 * MS + (long) (r.nextDouble() * 20 * MS);
            return slow.contains(from) || slow.contains(to) ? base + 3_000 * MS : base;
        };
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults().withLeafSetHalf(4), latency);
        world.addNodes(40);
        world.runFor(Duration.ofMinutes(1).toNanos());

        int joiner = world.addNode();
        Id id = world.contact(joiner).id();
        int root = -1;
        for (int i = 0; i < joiner; i++) {
            if (root < 0 || world.contact(i).id().isCloserTo(id, world.contact(root).id())) {
                root = i;
            }
        }
        // The joiner's first message is already on its way to a bootstrap; everything after it meets a slow root.
        slow.add(world.contact(root).address());

        boolean joined = world.runUntil(world.node(joiner)::isJoined,
                world.scheduler().nanoTime() + Duration.ofMinutes(2).toNanos());
        assertThat(joined).as("joined within 2 virtual minutes although its root (node %d) is slow", root).isTrue();
        // It joined next to its root: the node that served the join hands over its leaf set, the root included.
        assertThat(world.node(joiner).status().leafSet()).extracting(c -> c.id())
                .contains(world.contact(root).id());
    }
}
