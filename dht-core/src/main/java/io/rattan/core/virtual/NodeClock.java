package io.rattan.core.virtual;

import io.rattan.core.env.Clock;

/**
 * One virtual node's clock in a world with faults: monotonic time is the world's (a real node's {@code nanoTime}
 * does not jump), wall-clock time is the world's plus an offset that a fault may step or skew. The world's own
 * scheduler keeps the true time. Single-threaded, like the world.
 */
final class NodeClock implements Clock {

    private final VirtualScheduler scheduler;
    private long offsetMillis;

    NodeClock(VirtualScheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public long nanoTime() {
        return scheduler.nanoTime();
    }

    @Override
    public long epochMillis() {
        return scheduler.epochMillis() + offsetMillis;
    }

    long offsetMillis() {
        return offsetMillis;
    }

    void offsetMillis(long offset) {
        this.offsetMillis = offset;
    }
}
