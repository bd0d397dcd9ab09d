package io.rattan.core.slow;

import java.util.Objects;

/**
 * Node {@code node} suffers {@code extra} on every message it starts serving in virtual time
 * [{@code startNanos}, {@code endNanos}). Times are on the world's virtual clock, which starts at 0.
 */
public record SlowPeriod(int node, long startNanos, long endNanos, Distribution extra) {

    public SlowPeriod {
        if (node < 0) {
            throw new IllegalArgumentException("node must be >= 0, got " + node);
        }
        if (startNanos < 0) {
            throw new IllegalArgumentException("startNanos must be >= 0, got " + startNanos);
        }
        if (endNanos <= startNanos) {
            throw new IllegalArgumentException("a period must end after it starts: [" + startNanos + ", " + endNanos
                    + ")");
        }
        Objects.requireNonNull(extra, "extra");
    }

    /** Whether the period covers {@code atNanos}; the end is exclusive. */
    public boolean covers(long atNanos) {
        return atNanos >= startNanos && atNanos < endNanos;
    }

    public long durationNanos() {
        return endNanos - startNanos;
    }
}
