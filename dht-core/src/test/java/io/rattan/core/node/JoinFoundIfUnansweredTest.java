package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nodes started alike that all restart at once list one another and wait: a node that has not joined answers no
 * join. The designated founder ({@code --founder-host}) founds the overlay once its attempts go unanswered for the
 * rounds it was given, and the others then join it.
 */
class JoinFoundIfUnansweredTest {

    private static final long MS = 1_000_000L;
    private static final NodeConfig CONFIG = NodeConfig.defaults().withLeafSetHalf(4);

    @Test
    void nodesWaitingForOneAnotherWaitForeverWithoutAFounder() {
        VirtualWorld world = waitingPair();
        world.runFor(Duration.ofMinutes(2).toNanos());
        assertThat(world.node(0).isJoined()).isFalse();
        assertThat(world.node(1).isJoined()).isFalse();
    }

    @Test
    void theFounderFoundsAfterItsRoundsGoUnansweredAndTheOtherJoinsIt() {
        VirtualWorld world = waitingPair();
        world.node(0).foundIfUnanswered(3);
        long timeout = CONFIG.requestTimeoutMillis() * MS;
        // Attempts time out at about 5, 10 and 15 s: it founds at the third, not before and not later.
        assertThat(world.runUntil(world.node(0)::isJoined, 5 * timeout / 2)).as("not before its third timeout")
                .isFalse();
        assertThat(world.runUntil(world.node(0)::isJoined, timeout)).as("at its third timeout").isTrue();
        assertThat(world.runUntil(world.node(1)::isJoined, Duration.ofMinutes(1).toNanos())).isTrue();
        assertThat(world.node(1).status().leafSet()).extracting(c -> c.id()).contains(world.contact(0).id());
    }

    @Test
    void zeroRoundsFoundsAtOnce() {
        VirtualWorld world = waitingPair();
        world.node(0).foundIfUnanswered(0);
        assertThat(world.runUntil(world.node(0)::isJoined, Duration.ofSeconds(1).toNanos())).isTrue();
    }

    /** Two nodes, neither joined, each listing the other as its bootstrap. */
    private static VirtualWorld waitingPair() {
        VirtualWorld world = new VirtualWorld(5, CONFIG, (from, to, r) -> 10 * MS);
        int a = world.startNodeAwaitingBootstrap();
        int b = world.startNodeAwaitingBootstrap();
        world.node(a).bootstrapResolved(List.of(world.contact(b).address()));
        world.node(b).bootstrapResolved(List.of(world.contact(a).address()));
        return world;
    }
}
