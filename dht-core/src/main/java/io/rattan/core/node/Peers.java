package io.rattan.core.node;

import io.rattan.core.id.Id;
import io.rattan.core.routing.RttEstimator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this node knows of each peer's health: an RTT estimator, whether it is suspected (a request timed out and a
 * probe is under way), and which peers were recently declared dead, so third parties' stale lists do not bring
 * them back. Owned by the node's event loop.
 */
final class Peers {

    /** Per-peer state. */
    static final class Peer {
        final RttEstimator rtt;
        boolean suspect;
        boolean probing;

        Peer(RttEstimator rtt) {
            this.rtt = rtt;
        }
    }

    private final long rtoInitialNanos;
    private final long rtoMinNanos;
    private final long rtoMaxNanos;
    private final long deadMemoryNanos;
    // Only looked up, never iterated, so HashMap order cannot leak into behaviour.
    private final Map<Id, Peer> peers = new HashMap<>();
    private final Map<Id, Long> deadUntil = new LinkedHashMap<>();

    Peers(long rtoInitialNanos, long rtoMinNanos, long rtoMaxNanos, long deadMemoryNanos) {
        this.rtoInitialNanos = rtoInitialNanos;
        this.rtoMinNanos = rtoMinNanos;
        this.rtoMaxNanos = rtoMaxNanos;
        this.deadMemoryNanos = deadMemoryNanos;
    }

    Peer get(Id id) {
        return peers.computeIfAbsent(id, k -> new Peer(new RttEstimator(rtoInitialNanos, rtoMinNanos, rtoMaxNanos)));
    }

    /** The smoothed RTT, or -1 when not measured. */
    long srttNanos(Id id) {
        Peer p = peers.get(id);
        return p == null ? -1 : p.rtt.srttNanos();
    }

    long rtoNanos(Id id) {
        Peer p = peers.get(id);
        return p == null ? rtoInitialNanos : p.rtt.rtoNanos();
    }

    boolean isSuspect(Id id) {
        Peer p = peers.get(id);
        return p != null && p.suspect;
    }

    /** The peer spoke to us directly: it is alive, whatever we believed. */
    void heardFrom(Id id) {
        deadUntil.remove(id);
        get(id).suspect = false;
    }

    void declareDead(Id id, long nowNanos) {
        peers.remove(id);
        deadUntil.put(id, nowNanos + deadMemoryNanos);
    }

    boolean isRecentlyDead(Id id, long nowNanos) {
        Long until = deadUntil.get(id);
        if (until == null) {
            return false;
        }
        if (until <= nowNanos) {
            deadUntil.remove(id);
            return false;
        }
        return true;
    }

    /** Forgets dead-marks that have run out; keeps the map bounded by the churn of one memory period. */
    void expireDeadMarks(long nowNanos) {
        for (Iterator<Long> it = deadUntil.values().iterator(); it.hasNext(); ) {
            if (it.next() <= nowNanos) {
                it.remove();
            }
        }
    }
}
