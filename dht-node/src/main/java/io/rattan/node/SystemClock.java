package io.rattan.node;

import io.rattan.core.env.Clock;

/** The real node's {@link Clock}: {@link System#nanoTime} and {@link System#currentTimeMillis}. Thread-safe. */
final class SystemClock implements Clock {

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long epochMillis() {
        return System.currentTimeMillis();
    }
}
