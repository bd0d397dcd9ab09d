package io.rattan.core.store;

import io.rattan.core.env.Clock;

/** A clock that moves only when a test moves it. Not thread-safe. */
public final class ManualTestClock implements Clock {

    private long epochMillis;
    private long nanoTime;

    public ManualTestClock(long epochMillis) {
        this.epochMillis = epochMillis;
    }

    @Override
    public long nanoTime() {
        return nanoTime;
    }

    @Override
    public long epochMillis() {
        return epochMillis;
    }

    public void setEpochMillis(long epochMillis) {
        this.epochMillis = epochMillis;
    }

    public void setNanoTime(long nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Moves both clocks forward by {@code millis}. */
    public void advanceMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("time does not go back: " + millis);
        }
        epochMillis += millis;
        nanoTime += millis * 1_000_000L;
    }
}
