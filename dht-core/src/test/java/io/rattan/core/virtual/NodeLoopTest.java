package io.rattan.core.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.core.env.Cancellable;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class NodeLoopTest {

    private static final long MS = 1_000_000L;
    private static final Address NODE = new Address("node0", 1);

    private final VirtualScheduler scheduler = new VirtualScheduler(0);
    private final List<Long> ranAtMs = new ArrayList<>();
    // The node is busy serving messages until this time (virtual ms).
    private long busyUntilMs;

    private final LatencyModel model = new LatencyModel() {
        @Override
        public long delayNanos(Address from, Address to, RandomGenerator random) {
            return MS;
        }

        @Override
        public long readyAtNanos(Address node, long nowNanos) {
            return Math.max(nowNanos, busyUntilMs * MS);
        }
    };

    private final NodeLoop loop = new NodeLoop(scheduler, model, NODE);

    private Cancellable timerAt(long ms) {
        return loop.schedule(ms * MS, () -> ranAtMs.add(scheduler.nanoTime() / MS));
    }

    @Test
    void anIdleNodesTimerRunsWhenDue() {
        timerAt(10);
        scheduler.runFor(1_000 * MS);
        assertThat(ranAtMs).containsExactly(10L);
    }

    @Test
    void aBusyNodesTimerRunsOnceItsQueueIsServed() {
        busyUntilMs = 50;
        timerAt(10);
        scheduler.runFor(1_000 * MS);
        assertThat(ranAtMs).containsExactly(50L);
    }

    @Test
    void aTimerCancelledBeforeItIsDueOrWhileItWaitsNeverRuns() {
        timerAt(10).cancel();
        busyUntilMs = 50;
        Cancellable waiting = timerAt(20);
        scheduler.runFor(30 * MS);
        waiting.cancel();
        scheduler.runFor(1_000 * MS);
        assertThat(ranAtMs).isEmpty();
    }
}
