package io.rattan.core.client;

import java.util.Arrays;

/**
 * When a hedged get sends its extra copy: a high quantile of the latencies of the last {@value #WINDOW} gets, clamped
 * to [floor, cap]. The fixed cap keeps hedging alive through a sick period that would otherwise drag the quantile up
 * until nothing is ever late; the floor keeps a fast LAN from hedging on noise. Until {@value #WARMUP} gets are
 * known the threshold is the cap. Memory is one array of {@value #WINDOW} longs. Not thread-safe.
 */
public final class HedgeThreshold {

    public static final int WINDOW = 64;
    public static final int WARMUP = 8;

    private final double quantile;
    private final long floorNanos;
    private final long capNanos;
    private final long[] ring = new long[WINDOW];
    private int count;
    private int next;

    /**
     * @param quantile   which quantile of recent latencies, in (0, 1)
     * @param floorNanos the lowest threshold
     * @param capNanos   the highest threshold, and the threshold while warming up
     */
    public HedgeThreshold(double quantile, long floorNanos, long capNanos) {
        if (!(quantile > 0 && quantile < 1)) {
            throw new IllegalArgumentException("quantile must be in (0, 1), got " + quantile);
        }
        if (floorNanos < 0 || capNanos < floorNanos) {
            throw new IllegalArgumentException("need 0 <= floor <= cap, got " + floorNanos + ", " + capNanos);
        }
        this.quantile = quantile;
        this.floorNanos = floorNanos;
        this.capNanos = capNanos;
    }

    /**
     * p80 of recent gets, at least 5 ms, at most 500 ms: about one get in five sends the extra copy. A lower
     * percentile cuts the p99 a little more but breaks the budget of 1.3 times an unhedged get's messages on the
     * simulator's OpenDHT workload (docs/history.md, "Hedge at p80").
     */
    public static HedgeThreshold defaults() {
        return new HedgeThreshold(0.80, 5_000_000L, 500_000_000L);
    }

    /** Records how long a finished get took. */
    public void record(long latencyNanos) {
        ring[next] = Math.max(0, latencyNanos);
        next = (next + 1) % WINDOW;
        count = Math.min(count + 1, WINDOW);
    }

    /** How long to wait for an answer before sending the hedge copy. */
    public long thresholdNanos() {
        if (count < WARMUP) {
            return capNanos;
        }
        long[] sorted = Arrays.copyOf(ring, count);
        Arrays.sort(sorted);
        long q = sorted[Math.min(count - 1, (int) Math.ceil(quantile * count) - 1)];
        return Math.max(floorNanos, Math.min(capNanos, q));
    }
}
