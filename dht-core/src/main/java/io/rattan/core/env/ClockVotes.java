package io.rattan.core.env;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the last {@link #HOSTS} hosts an {@link ExpiryClock} heard say of it: each one's offset from this clock, or no
 * time at all from a host whose own clock has not settled (most, while a cluster starts). One entry a host, however
 * often it answers. The median counts a host that told no time as agreeing with this clock, so hosts that do tell
 * one must be a majority of those heard to decide anything: while a cluster starts, the few that tell a time may be
 * liars that nobody else contradicts yet (docs/security.md, item 7). Owned by its clock (under its lock).
 *
 * <p>With the planted bug {@code CLOCK_THREE_HOSTS} it is the rule before: the last five hosts that told a time,
 * the first three of them decide, and a correction starts the window afresh.
 */
final class ClockVotes {

    /** The hosts remembered: it takes five liars among the last nine hosts heard to move a clock. */
    static final int HOSTS = 9;
    private static final int HOSTS_BEFORE = 5;
    private static final int FEW = 3;

    private final boolean threeHosts;
    private final long spreadMillis;
    private final long quietNanos;
    // A host's offset, or null for one whose clock had not settled, in the order last heard.
    private final LinkedHashMap<Object, Long> window = new LinkedHashMap<>();
    // When a host not in the window was last heard: while new ones keep coming, a few are not all there are.
    private long newHostNanos;

    /**
     * @param spreadMillis how far apart hosts that agree may be (2 S)
     * @param quietNanos   how long without a new host before the few heard are taken for all there are (30 s)
     */
    ClockVotes(boolean threeHosts, long spreadMillis, long quietNanos, long nowNanos) {
        this.threeHosts = threeHosts;
        this.spreadMillis = spreadMillis;
        this.quietNanos = quietNanos;
        this.newHostNanos = nowNanos;
    }

    /** {@code host} says this clock is {@code offsetMillis} behind it (null: it told no time). */
    void heard(Object host, Long offsetMillis, long nowNanos) {
        if (offsetMillis == null && threeHosts) {
            return;
        }
        boolean known = window.containsKey(host);
        if (known) {
            window.remove(host);
        } else {
            newHostNanos = nowNanos;
        }
        window.put(host, offsetMillis);
        if (window.size() > (threeHosts ? HOSTS_BEFORE : HOSTS)) {
            window.remove(window.keySet().iterator().next());
        }
    }

    /**
     * Whether the window may move or confirm the clock: hosts that told a time are most of those heard, and they are
     * five; or, once peers have {@code confirmed} the clock, three or four that agree within 2 S; or, when no new host
     * has been heard for a while (a cluster of a few hosts), three or four, or two that agree and are all there are.
     * (Before confirmation the first hosts a node hears may be whoever was named to it, and their correction is made
     * whole.)
     */
    boolean decisive(long nowNanos, boolean confirmed) {
        List<Long> told = told();
        int n = told.size();
        boolean quiet = nowNanos - newHostNanos >= quietNanos;
        if (threeHosts) {
            return n >= FEW || n == 2 && quiet && agree(told);
        }
        if (2 * n <= window.size()) {
            return false;
        }
        return n >= HOSTS_BEFORE || n >= FEW && (quiet || confirmed && agree(told))
                || n == 2 && quiet && agree(told) && window.size() == 2;
    }

    /** The middle offset, a host that told no time counting as 0; of two middle ones, the lower (forward purges). */
    long median() {
        long[] sorted = window.values().stream().mapToLong(v -> v == null ? 0 : v).sorted().toArray();
        return sorted[(sorted.length - 1) / 2];
    }

    /**
     * The clock moved by {@code stepMillis}: the offsets are kept, moved with it, so that the hosts that outvoted a
     * few wrong ones go on doing so (started afresh, the next few heard would decide again).
     */
    void moved(long stepMillis) {
        if (threeHosts) {
            window.clear();
        } else {
            window.replaceAll((host, offset) -> offset == null ? null : offset - stepMillis);
        }
    }

    /** Forgets every host: the clock is known to be far off. */
    void clear() {
        window.clear();
    }

    /** Whether no host was heard at all, with a time or without. */
    boolean noneHeard() {
        return window.isEmpty();
    }

    /** Whether no host told a time. */
    boolean noneTold() {
        return told().isEmpty();
    }

    /** Whether a host told no time and hosts that did are too few to decide: a cluster starting. */
    boolean clusterStarting(long nowNanos) {
        return window.containsValue(null) && !decisive(nowNanos, false);
    }

    /** Whether a host says this clock is off by more than {@code millis}. */
    boolean anyBeyond(long millis) {
        return told().stream().anyMatch(offset -> Math.abs(offset) > millis);
    }

    private List<Long> told() {
        List<Long> told = new ArrayList<>(window.size());
        for (Map.Entry<Object, Long> e : window.entrySet()) {
            if (e.getValue() != null) {
                told.add(e.getValue());
            }
        }
        return told;
    }

    private boolean agree(List<Long> told) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long offset : told) {
            min = Math.min(min, offset);
            max = Math.max(max, offset);
        }
        return max - min <= spreadMillis;
    }
}
