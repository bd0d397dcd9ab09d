package io.rattan.sim.net;

import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/** Draws the slow periods of a {@link SlowNodeModel} for a world of nodes, and measures schedules. */
public final class SlowSchedule {

    private SlowSchedule() {
    }

    /**
     * Runs each node's two-state chain over [0, {@code durationNanos}) and returns its slow periods, ordered by node
     * then time. A node starts slow with probability f, the chain's stationary distribution, so the slow fraction is
     * f from the first instant rather than after a warm-up; the first holding time needs no correction because the
     * exponential is memoryless. Periods are clipped to the horizon. When the model drops messages, each slow period
     * is listed twice, once with the delay and once with the {@link Distribution.Drop}, over the same interval.
     *
     * <p>Each node draws from its own stream split off the seed in node order, so node i's periods do not depend on
     * how many nodes follow it: the same seed gives the same periods in a bigger world.
     */
    public static List<SlowPeriod> generate(SlowNodeModel model, int nodes, long durationNanos, long seed) {
        if (nodes < 0) {
            throw new IllegalArgumentException("nodes must be >= 0, got " + nodes);
        }
        if (durationNanos <= 0) {
            throw new IllegalArgumentException("durationNanos must be positive, got " + durationNanos);
        }
        SplittableRandom root = new SplittableRandom(seed);
        List<SlowPeriod> periods = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            SplittableRandom random = root.split();
            if (model.slowFraction() == 0) {
                continue;
            }
            if (model.slowFraction() == 1) {
                add(periods, model, node, 0, durationNanos);
                continue;
            }
            boolean slow = random.nextDouble() < model.slowFraction();
            long t = 0;
            while (t < durationNanos) {
                double mean = slow ? model.meanSlowNanos() : model.meanNormalNanos();
                double length = -mean * Math.log(1.0 - random.nextDouble());
                // Compared as doubles first: a rare state's mean can exceed the range of a long.
                long end = length >= durationNanos - t ? durationNanos : t + Math.max(1, Math.round(length));
                if (slow) {
                    add(periods, model, node, t, end);
                }
                t = end;
                slow = !slow;
            }
        }
        return List.copyOf(periods);
    }

    private static void add(List<SlowPeriod> periods, SlowNodeModel model, int node, long start, long end) {
        periods.add(new SlowPeriod(node, start, end, model.slowExtra()));
        if (model.slowDropProbability() > 0) {
            periods.add(new SlowPeriod(node, start, end, new Distribution.Drop(model.slowDropProbability())));
        }
    }

    /**
     * The time-averaged fraction of nodes that are slow over [0, {@code durationNanos}): the node-time covered by at
     * least one period (overlaps counted once, periods clipped to the horizon) divided by {@code nodes ×
     * durationNanos}.
     */
    public static double slowNodeTimeFraction(List<SlowPeriod> periods, int nodes, long durationNanos) {
        if (nodes <= 0 || durationNanos <= 0) {
            throw new IllegalArgumentException("need nodes > 0 and durationNanos > 0");
        }
        List<SlowPeriod> sorted = new ArrayList<>(periods);
        sorted.sort(Comparator.comparingInt(SlowPeriod::node).thenComparingLong(SlowPeriod::startNanos));
        double covered = 0;
        int node = -1;
        long runStart = 0;
        long runEnd = 0;
        for (SlowPeriod p : sorted) {
            if (p.node() >= nodes) {
                continue;
            }
            long start = Math.min(p.startNanos(), durationNanos);
            long end = Math.min(p.endNanos(), durationNanos);
            if (p.node() != node || start > runEnd) {
                covered += runEnd - runStart;
                node = p.node();
                runStart = start;
                runEnd = end;
            } else {
                runEnd = Math.max(runEnd, end);
            }
        }
        covered += runEnd - runStart;
        return covered / ((double) nodes * durationNanos);
    }
}
