package io.rattan.core.node;

/**
 * Per-peer smoothed RTT and variance, Jacobson/Karels as RFC 6298 states it, with Bamboo's extra 10 ms
 * ("the 10 accounts for GC") and a cap. The timeout doubles on each expiry until a new sample arrives.
 * Not thread-safe: owned by the node's event loop. Public (its constructor, {@link #sample} and {@link #rtoNanos})
 * for bench's microbenchmark.
 */
public final class RttEstimator {

    private static final long GC_ALLOWANCE_NANOS = 10_000_000L;

    private final long rtoMinNanos;
    private final long rtoMaxNanos;
    private long srttNanos = -1;
    private long rttvarNanos;
    private long rtoNanos;

    public RttEstimator(long rtoInitialNanos, long rtoMinNanos, long rtoMaxNanos) {
        this.rtoMinNanos = rtoMinNanos;
        this.rtoMaxNanos = rtoMaxNanos;
        this.rtoNanos = rtoInitialNanos;
    }

    /** Records one RTT measurement; a late reply is still a sample. */
    public void sample(long rttNanos) {
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
        rtoNanos = clamp(srttNanos + 4 * rttvarNanos + GC_ALLOWANCE_NANOS);
    }

    /** A request to this peer timed out: back off. */
    void backoff() {
        rtoNanos = clamp(rtoNanos * 2);
    }

    /** The current retransmission timeout. */
    public long rtoNanos() {
        return rtoNanos;
    }

    /** Smoothed RTT, or -1 before the first sample. */
    long srttNanos() {
        return srttNanos;
    }

    boolean hasSample() {
        return srttNanos >= 0;
    }

    private long clamp(long v) {
        return Math.max(rtoMinNanos, Math.min(rtoMaxNanos, v));
    }
}
