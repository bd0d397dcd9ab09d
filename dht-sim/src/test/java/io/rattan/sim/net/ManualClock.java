package io.rattan.sim.net;

import io.rattan.core.env.Clock;

/** A clock tests move by hand, standing in for the virtual scheduler. */
final class ManualClock implements Clock {

    private long nanos;

    void set(long atNanos) {
        nanos = atNanos;
    }

    void advance(long byNanos) {
        nanos += byNanos;
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public long epochMillis() {
        return nanos / 1_000_000L;
    }
}
