package io.rattan.sim.net;

import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The slow periods of each node, indexed for "which periods cover time t" in O(log n) plus the periods found.
 * Periods of one node may overlap (a delay and a drop over the same interval, or a hand-edited trace).
 */
final class PeriodIndex {

    /** Returned by {@link #sampleExtraNanos} when no delay effect covers the time. */
    static final long NOT_DELAYED = -1;

    private final long[][] starts;
    private final long[][] ends;
    // maxEnds[i] = max(ends[0..i]): once it is <= t, no earlier period can cover t either, so a scan may stop.
    private final long[][] maxEnds;
    private final Distribution[][] effects;

    PeriodIndex(List<SlowPeriod> periods, int nodes) {
        List<List<SlowPeriod>> byNode = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            byNode.add(new ArrayList<>());
        }
        for (SlowPeriod p : periods) {
            if (p.node() >= nodes) {
                throw new IllegalArgumentException("slow period for node " + p.node() + " but the world has only "
                        + nodes + " nodes: " + p);
            }
            byNode.get(p.node()).add(p);
        }
        starts = new long[nodes][];
        ends = new long[nodes][];
        maxEnds = new long[nodes][];
        effects = new Distribution[nodes][];
        for (int node = 0; node < nodes; node++) {
            List<SlowPeriod> own = byNode.get(node);
            // Stable: periods with equal starts keep their list order, so their samples are drawn in trace order.
            own.sort(Comparator.comparingLong(SlowPeriod::startNanos));
            int n = own.size();
            starts[node] = new long[n];
            ends[node] = new long[n];
            maxEnds[node] = new long[n];
            effects[node] = new Distribution[n];
            long maxEnd = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                SlowPeriod p = own.get(i);
                starts[node][i] = p.startNanos();
                ends[node][i] = p.endNanos();
                maxEnd = Math.max(maxEnd, p.endNanos());
                maxEnds[node][i] = maxEnd;
                effects[node][i] = p.extra();
            }
        }
    }

    /** Whether any period of {@code node} covers {@code t}. */
    boolean covered(int node, long t) {
        long[] end = ends[node];
        for (int i = lastStartingBy(node, t); i >= 0 && maxEnds[node][i] > t; i--) {
            if (end[i] > t) {
                return true;
            }
        }
        return false;
    }

    /** The sum of one sample from each delay effect covering {@code t}, or {@link #NOT_DELAYED} if there is none. */
    long sampleExtraNanos(int node, long t, RandomGenerator random) {
        long extra = NOT_DELAYED;
        long[] end = ends[node];
        Distribution[] effect = effects[node];
        for (int i = lastStartingBy(node, t); i >= 0 && maxEnds[node][i] > t; i--) {
            if (end[i] > t && effect[i].delays()) {
                extra = Math.max(extra, 0) + effect[i].sampleNanos(random);
            }
        }
        return extra;
    }

    /** The chance a message is dropped at {@code t}: overlapping drop effects act as independent losses. */
    double dropProbability(int node, long t) {
        double kept = 1;
        long[] end = ends[node];
        Distribution[] effect = effects[node];
        for (int i = lastStartingBy(node, t); i >= 0 && maxEnds[node][i] > t; i--) {
            if (end[i] > t) {
                kept *= 1 - effect[i].dropProbability();
            }
        }
        return 1 - kept;
    }

    /** Index of the last period of {@code node} starting at or before {@code t}, or -1. */
    private int lastStartingBy(int node, long t) {
        long[] start = starts[node];
        int lo = 0;
        int hi = start.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (start[mid] <= t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
