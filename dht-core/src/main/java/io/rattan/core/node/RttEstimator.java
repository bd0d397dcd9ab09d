package io.rattan.core.node;

/**
 * Per-peer smoothed RTT and variance, Jacobson/Karels as RFC 6298 states it, with Bamboo's extra 10 ms
 * ("the 10 accounts for GC") and a cap. The timeout doubles on each expiry until a new sample arrives.
 * A node of a large overlay keeps one per peer it has heard, hundreds of them, and its peer record extends this
 * class: so the timeout's bounds are the caller's ({@link Bounds}), and the timeout is kept as the doublings since the
 * last sample, recomputed when asked, which gives the same value as doubling and clamping a stored one.
 * Not thread-safe: owned by the node's event loop. Public (its constructor, {@link #sample} and {@link #rtoNanos})
 * for bench's microbenchmark.
 */
public class RttEstimator {

    /** The timeout before any sample, and its floor and cap. */
    public record Bounds(long initialNanos, long minNanos, long maxNanos) {
    }

    private static final long GC_ALLOWANCE_NANOS = 10_000_000L;

    private long srttNanos = -1;
    private long rttvarNanos;
    /** Timeouts since the last sample, each a doubling; not counted once the timeout stops growing at the cap. */
    private byte backoffs;

    /** Records one RTT measurement; a late reply is still a sample. */
    public final void sample(long rttNanos) {
        long r = Math.max(0, rttNanos);
        if (srttNanos < 0) {
            srttNanos = r;
            rttvarNanos = r / 2;
        } else {
            rttvarNanos += (Math.abs(srttNanos - r) - rttvarNanos) / 4;
            // RFC 6298's gain of 1/8 learns a recovery slowly, and delay-aware routing sends a neighbour that looks
            // slow no traffic, so it gets few samples; a sample under half the estimate moves it half way instead.
            srttNanos += r < srttNanos / 2 ? (r - srttNanos) / 2 : (r - srttNanos) / 8;
        }
        backoffs = 0;
    }

    /** A request to this peer timed out: back off. */
    final void backoff(Bounds b) {
        long rto = rtoNanos(b);
        if (clamp(rto * 2, b) != rto) {
            backoffs++;
        }
    }

    /** The current retransmission timeout. */
    public final long rtoNanos(Bounds b) {
        long rto = srttNanos < 0 ? b.initialNanos() : clamp(srttNanos + 4 * rttvarNanos + GC_ALLOWANCE_NANOS, b);
        for (int i = 0; i < backoffs; i++) {
            rto = clamp(rto * 2, b);
        }
        return rto;
    }

    /** Smoothed RTT, or -1 before the first sample. */
    final long srttNanos() {
        return srttNanos;
    }

    final boolean hasSample() {
        return srttNanos >= 0;
    }

    private static long clamp(long v, Bounds b) {
        return Math.max(b.minNanos(), Math.min(b.maxNanos(), v));
    }
}
