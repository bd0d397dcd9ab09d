package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * Bamboo's delay-aware rule with a knee learned from the RTTs this node observes. Each candidate scores
 * {@code progress / (1 + exp((rtt − knee) / width))}: a neighbour's progress counts fully well below the knee, half
 * at it, and almost nothing far above it, so a slow neighbour is routed around unless it alone makes progress.
 *
 * <p>Bamboo fixed the knee at 100 ms and the width at 17.232 ms, which suits PlanetLab's ~140 ms median RTT but
 * would treat every LAN neighbour alike. Here the knee is {@code kneeFactor} × the median smoothed RTT over all of
 * this node's measured neighbours, and the width keeps Bamboo's proportion, {@code 0.17232 × knee}. A floor of 1 ms keeps the rule sane on loopback where
 * RTTs are microseconds. An unmeasured neighbour is scored at 1.5 knees (about a twentieth of its progress counts):
 * behind a measured neighbour under the knee unless that one makes far less progress, ahead of one known to be slow.
 */
final class DelayAwarePolicy implements NextHopPolicy {

    /** Bamboo's width as a share of its knee: 17.232 ms / 100 ms. */
    static final double WIDTH_SHARE = 0.17232;
    private static final double KNEE_FLOOR_NANOS = 1_000_000;
    private static final double RTT_CAP_NANOS = 10_000_000_000.0;
    /**
     * An unmeasured neighbour is scored as if its RTT were this many knees: about a twentieth of its progress counts,
     * where a measured neighbour under the knee has at least half of its own counted, and one far above it almost
     * none. Scored at the knee, it would beat measured neighbours a little under the knee, and under churn gets would
     * go to nodes that joined and left unmeasured, waiting out the initial per-hop timeout (docs/history.md,
     * "Unmeasured neighbours scored at 1.5 knees").
     */
    static final double UNMEASURED_KNEES = 1.5;

    private final double kneeFactor;

    /**
     * Factor 1.5: a neighbour half again slower than the typical one starts losing. A lower knee makes gets take many
     * short hops, and more messages than greedy; at 1.5 they take about as many, still routing around slow nodes,
     * whose RTTs are seconds (docs/history.md, "The delay-aware knee at 1.5 times the median").
     */
    static final double KNEE_FACTOR_DEFAULT = 1.5;

    DelayAwarePolicy() {
        this(KNEE_FACTOR_DEFAULT);
    }

    DelayAwarePolicy(double kneeFactor) {
        if (!(kneeFactor > 0)) {
            throw new IllegalArgumentException("kneeFactor must be positive");
        }
        this.kneeFactor = kneeFactor;
    }

    @Override
    public Contact choose(Id key, Id self, List<Contact> candidates, RttView rtts) {
        double knee = Math.max(KNEE_FLOOR_NANOS, kneeFactor * rtts.medianSrttNanos());
        double width = WIDTH_SHARE * knee;
        Contact best = null;
        double bestScore = -1;
        for (Contact c : candidates) {
            long srtt = rtts.srttNanos(c.id());
            double rtt = srtt < 0 ? UNMEASURED_KNEES * knee : Math.min(srtt, RTT_CAP_NANOS);
            double score = progress(key, self, c) / (1 + Math.exp((rtt - knee) / width));
            if (best == null || score > bestScore || (score == bestScore && c.id().isCloserTo(key, best.id()))) {
                best = c;
                bestScore = score;
            }
        }
        return best;
    }

    /** Key-space progress of moving from {@code self} to {@code c}: how much closer {@code c} is to the key. */
    private static double progress(Id key, Id self, Contact c) {
        return self.distanceTo(key).toDouble() - c.id().distanceTo(key).toDouble();
    }
}
