package io.rattan.sim.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Every partition of a run, with its sides and its time in force, so that the checker excuses a miss only by a
 * partition that cut the nodes that get depended on, not by any partition anywhere. Single-threaded, on the world's
 * thread.
 */
final class PartitionHistory {

    /** One partition: node i on side {@code sides[i]}; {@code endNanos} is Long.MAX_VALUE while it is in force. */
    private static final class Span {
        final long startNanos;
        final byte[] sides;
        long endNanos = Long.MAX_VALUE;

        Span(long startNanos, byte[] sides) {
            this.startNanos = startNanos;
            this.sides = sides.clone();
        }

        boolean separates(Collection<Integer> group) {
            int seen = -1;
            for (int i : group) {
                if (seen >= 0 && sides[i] != seen) {
                    return true;
                }
                seen = sides[i];
            }
            return false;
        }
    }

    private final List<Span> spans = new ArrayList<>();

    void started(long atNanos, byte[] sides) {
        spans.add(new Span(atNanos, sides));
    }

    void healed(long atNanos) {
        if (!spans.isEmpty() && spans.get(spans.size() - 1).endNanos == Long.MAX_VALUE) {
            spans.get(spans.size() - 1).endNanos = atNanos;
        }
    }

    /**
     * The excuse for a miss by a get that ran from {@code fromNanos} to {@code toNanos} and depended on the nodes of
     * {@code group} (its gateway, the key's replicas, the value's holders): a partition that put some of them on
     * different sides while the get ran, or that healed less than {@code settleNanos} before it started; null when
     * none did.
     */
    Excuse excuse(Collection<Integer> group, long fromNanos, long toNanos, long settleNanos) {
        Excuse out = null;
        for (Span s : spans) {
            if (s.startNanos > toNanos || !s.separates(group)) {
                continue;
            }
            if (s.endNanos >= fromNanos) {
                return Excuse.PARTITION;
            }
            if (fromNanos - s.endNanos < settleNanos) {
                out = Excuse.HEAL_SETTLING;
            }
        }
        return out;
    }

    /** Whether any partition was in force at some moment from {@code fromNanos} to {@code toNanos}. */
    boolean anyInForce(long fromNanos, long toNanos) {
        for (Span s : spans) {
            if (s.startNanos <= toNanos && s.endNanos >= fromNanos) {
                return true;
            }
        }
        return false;
    }

    /**
     * When the last partition that put nodes of {@code group} on different sides healed: Long.MAX_VALUE while one
     * does, Long.MIN_VALUE if none ever did.
     */
    long separatedUntil(Collection<Integer> group) {
        long out = Long.MIN_VALUE;
        for (Span s : spans) {
            if (s.separates(group)) {
                out = Math.max(out, s.endNanos);
            }
        }
        return out;
    }
}
