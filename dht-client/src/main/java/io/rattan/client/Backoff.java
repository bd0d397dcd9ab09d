package io.rattan.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: before retry n (1-based) the client waits a uniformly random time in
 * [0, min(max, base * 2^(n-1))]. Full jitter spreads the retries of many clients that failed together, so that a
 * gateway coming back is not hit by all of them at once. Immutable and thread-safe.
 */
final class Backoff {

    private final long baseNanos;
    private final long maxNanos;

    Backoff(Duration base, Duration max) {
        this.baseNanos = base.toNanos();
        this.maxNanos = max.toNanos();
        if (baseNanos <= 0 || maxNanos < baseNanos) {
            throw new IllegalArgumentException("need 0 < base <= max, got " + base + " and " + max);
        }
    }

    /** The upper bound of the delay before retry {@code retry} (1-based). */
    long ceilingNanos(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retries are numbered from 1, got " + retry);
        }
        // Doubling past the cap would overflow for large retry numbers; stop as soon as the cap is reached.
        long ceiling = baseNanos;
        for (int i = 1; i < retry && ceiling < maxNanos; i++) {
            ceiling = ceiling > maxNanos / 2 ? maxNanos : ceiling * 2;
        }
        return Math.min(ceiling, maxNanos);
    }

    /** A random delay before retry {@code retry} (1-based), in [0, {@link #ceilingNanos}]. */
    long delayNanos(int retry, RandomGenerator random) {
        return random.nextLong(ceilingNanos(retry) + 1);
    }
}
