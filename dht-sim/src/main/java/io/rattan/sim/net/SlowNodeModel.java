package io.rattan.sim.net;

import io.rattan.core.slow.Distribution;
import java.util.Objects;

/**
 * The knobs of the slow-node model (ANCHORS-LATENCY.md, "The simulated world"; a proposal to be tuned by experiment).
 * Each node is a FIFO server and alternates between normal and slow periods, a two-state Markov chain with
 * exponential holding times. The mean normal period is {@code meanSlowNanos × (1 − f) / f}, so that at any moment a
 * fraction f = {@code slowFraction} of the nodes is slow.
 *
 * @param slowFraction            f, the stationary fraction of nodes slow at a time, in [0, 1]
 * @param meanSlowNanos           mean length of a slow period (exponentially distributed)
 * @param slowExtra               extra service delay of each message a slow node handles; a delay effect
 * @param slowDropProbability     chance a slow node drops a message it is sent; 0 generates no drop periods
 * @param healthyStallProbability chance a healthy node stalls on a message
 * @param healthyStall            length of such a stall; a delay effect
 * @param baseServiceNanos        service time of every message at every node, slow or not
 */
public record SlowNodeModel(
        double slowFraction,
        long meanSlowNanos,
        Distribution slowExtra,
        double slowDropProbability,
        double healthyStallProbability,
        Distribution healthyStall,
        long baseServiceNanos) {

    /** PlanetLab load states persist on the order of half an hour. */
    public static final long DEFAULT_MEAN_SLOW_NANOS = 30L * 60 * 1_000_000_000L;

    public SlowNodeModel {
        requireProbability(slowFraction, "slowFraction");
        if (meanSlowNanos <= 0) {
            throw new IllegalArgumentException("meanSlowNanos must be positive, got " + meanSlowNanos);
        }
        requireDelay(slowExtra, "slowExtra");
        requireProbability(slowDropProbability, "slowDropProbability");
        requireProbability(healthyStallProbability, "healthyStallProbability");
        requireDelay(healthyStall, "healthyStall");
        if (baseServiceNanos < 0) {
            throw new IllegalArgumentException("baseServiceNanos must be >= 0, got " + baseServiceNanos);
        }
    }

    /**
     * The proposal's starting point: f = 5%, slow periods of 30 min on average, Pareto(50 ms, 1.2) capped at 30 s
     * while slow, no drops, healthy nodes stalling on 1 message in 1,000 by Pareto(100 ms, 1.5) capped at 5 s, and
     * 1 ms of service per message.
     */
    public static SlowNodeModel defaults() {
        return new SlowNodeModel(0.05, DEFAULT_MEAN_SLOW_NANOS, new Distribution.Pareto(50, 1.2, 30_000), 0,
                0.001, new Distribution.Pareto(100, 1.5, 5_000), 1_000_000L);
    }

    /** A healthy world with the same service times: no slow periods, no stalls. */
    public static SlowNodeModel none() {
        return defaults().withSlowFraction(0).withHealthyStallProbability(0);
    }

    /** Mean length of a normal period; infinite when f = 0 (never slow), 0 when f = 1 (always slow). */
    public double meanNormalNanos() {
        if (slowFraction == 0) {
            return Double.POSITIVE_INFINITY;
        }
        return meanSlowNanos * (1 - slowFraction) / slowFraction;
    }

    public SlowNodeModel withSlowFraction(double f) {
        return new SlowNodeModel(f, meanSlowNanos, slowExtra, slowDropProbability, healthyStallProbability,
                healthyStall, baseServiceNanos);
    }

    public SlowNodeModel withMeanSlowNanos(long nanos) {
        return new SlowNodeModel(slowFraction, nanos, slowExtra, slowDropProbability, healthyStallProbability,
                healthyStall, baseServiceNanos);
    }

    public SlowNodeModel withSlowExtra(Distribution extra) {
        return new SlowNodeModel(slowFraction, meanSlowNanos, extra, slowDropProbability, healthyStallProbability,
                healthyStall, baseServiceNanos);
    }

    public SlowNodeModel withSlowDropProbability(double p) {
        return new SlowNodeModel(slowFraction, meanSlowNanos, slowExtra, p, healthyStallProbability, healthyStall,
                baseServiceNanos);
    }

    public SlowNodeModel withHealthyStallProbability(double p) {
        return new SlowNodeModel(slowFraction, meanSlowNanos, slowExtra, slowDropProbability, p, healthyStall,
                baseServiceNanos);
    }

    private static void requireProbability(double p, String name) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1], got " + p);
        }
    }

    private static void requireDelay(Distribution d, String name) {
        Objects.requireNonNull(d, name);
        if (!d.delays()) {
            throw new IllegalArgumentException(name + " must be a delay (pareto or fixed), got " + d);
        }
    }
}
