package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node whose bootstrap names are not resolved yet (a Kubernetes pod whose Service has no address at first) waits:
 * it founds no overlay of its own, and joins through the addresses once they come, also after a first set that
 * answers nothing (virtual time).
 */
class BootstrapResolvedTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aNodeWaitsForItsBootstrapAddressesAndJoinsThroughThem() {
        NodeConfig config = NodeConfig.defaults();
        VirtualWorld world = new VirtualWorld(11, config, (from, to, random) -> 2_000_000L);
        world.addNodes(6);
        int waiting = world.startNodeAwaitingBootstrap();
        world.runFor(30 * SECOND);
        Node node = world.node(waiting);
        assertThat(node.isJoined()).as("joined with no bootstrap address").isFalse();
        assertThat(node.status().leafSet()).as("a node that founded an overlay of its own").isEmpty();

        // The first addresses answer nothing (a pod that is gone); the next resolution names a live node.
        node.bootstrapResolved(List.of(new Address("127.0.0.9", 1)));
        world.runFor(3 * SECOND);
        node.bootstrapResolved(List.of(new Address("127.0.0.9", 1), world.contact(2).address()));
        assertThat(world.runUntil(node::isJoined, world.scheduler().nanoTime() + 60 * SECOND)).isTrue();
        world.runFor(10 * SECOND);
        assertThat(node.status().leafSet()).hasSize(6);

        // Once joined, later resolutions change nothing.
        node.bootstrapResolved(List.of());
        world.runFor(5 * SECOND);
        assertThat(node.isJoined()).isTrue();
    }
}
