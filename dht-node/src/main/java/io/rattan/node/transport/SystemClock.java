package io.rattan.node.transport;

import io.rattan.core.env.Clock;

/** The real node's {@link Clock}: {@link System#nanoTime} and {@link System#currentTimeMillis}. Thread-safe. */
public final class SystemClock implements Clock {

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long epochMillis() {
        return System.currentTimeMillis();
    }
}
