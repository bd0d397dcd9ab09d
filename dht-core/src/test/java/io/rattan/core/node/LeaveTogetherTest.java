package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Neighbours that leave at the same moment (a cluster shut down, a rack drained), in the virtual world: each hands its
 * records off, and a hand-off to a neighbour that left meanwhile ends when its goodbye comes, rather than waiting out
 * the timeouts of a node that is gone.
 */
class LeaveTogetherTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 12;

    @Test
    void neighboursLeavingTogetherAllFinishWithoutWaitingOutATimeout() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3).withReplicas(4, 2).withPeriods(500, 1_000,
                1_000);
        VirtualWorld world = new VirtualWorld(11, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(10 * SECOND);
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 200; i++) {
            Message reply = world.request(random.nextInt(NODES), new ClientPut(Id.random(random),
                    Bytes.utf8("value-" + i), 3600, Bytes.EMPTY));
            assertThat(((PutReply) reply).status()).isEqualTo(Status.OK);
        }
        world.runFor(5 * SECOND);

        long start = world.scheduler().nanoTime();
        long[] goneAfter = new long[NODES];
        Arrays.fill(goneAfter, -1);
        for (int i = 0; i < NODES; i++) {
            int n = i;
            world.startLeave(i, () -> goneAfter[n] = world.scheduler().nanoTime() - start);
        }
        world.runUntil(() -> Arrays.stream(goneAfter).allMatch(t -> t >= 0), 31 * SECOND);

        // Every request of a hand-off session waits up to rtoMax for its answer: a leave that waited for a neighbour
        // already gone would take at least that long (up to the 30 s deadline, after three tries).
        long slowest = Arrays.stream(goneAfter).max().orElseThrow();
        assertThat(Arrays.stream(goneAfter).boxed()).as("virtual nanoseconds each node took to leave")
                .allMatch(t -> t >= 0);
        assertThat(slowest).as("the slowest leave, virtual nanoseconds")
                .isLessThan(config.rtoMaxMillis() * 1_000_000L);
    }
}
