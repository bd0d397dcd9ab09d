package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Repair over a store whose queue is full: a store that cannot take more work refuses it within the call that
 * submits it ({@code OffLoopStore}, {@code QueuedStore}), so a repair session fails inside the call that started it.
 * Restarting the members whose sessions had failed from there made two of them start each other without end, until
 * the node's loop overflowed its stack; a real node's store fills under a flood of scans (issue 39's repair flood).
 */
class RepairWithABusyStoreTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void sessionsThatFailAtOnceDoNotStartEachOtherAgain() {
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 1).withLeafSetHalf(2)
                .withPeriods(1_000, 1_000, 3_600_000);
        VirtualWorld world = new VirtualWorld(3, config, LatencyModel.constant(1_000_000L));
        // Each store task takes a minute, with one waiting behind it at most: nearly every task is refused at once.
        world.queueStoreWork(60 * SECOND, 1);
        world.addNodes(8);
        AtomicInteger answered = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            world.node(i % 8).handleClient(new ClientPut(Id.ofName("busy-" + i), Bytes.utf8("v" + i), 600,
                    Bytes.EMPTY), reply -> answered.incrementAndGet());
        }
        world.runFor(30 * SECOND);

        assertThat(answered).as("every put answered (most as store faults), none lost in a stack overflow")
                .hasValue(20);
    }
}
