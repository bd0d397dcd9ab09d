package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Id;
import java.util.HashMap;
import java.util.Map;

/**
 * How long a repair session waits for each peer's answer to a range digest or digest. The peer scans its own copy of
 * the range before it answers, a store page at a time, so the answer takes as long as that scan: at volume on a loaded
 * machine, longer than the peer's request timeout cap ({@code rtoMaxMillis}). A fixed wait then fails every session at
 * its first range digest, and the next session asks the same question with the same wait, for ever.
 * So a timed-out answer doubles the wait for that peer (up to {@value #CAP_FACTOR} times the cap); a session that
 * finishes with every answer well within its wait (under a quarter) halves it again, down to the cap. A crashed peer
 * is found by failure detection, not by these waits, and its session is cancelled when it leaves the leaf set
 * ({@link Repair}). A request lost on the way, or its answer, is not waited out: it is sent again after
 * {@link #resendAfter} ({@link ResentRequest}). Owned by the node's event loop.
 */
final class ScanTimeouts {

    static final int CAP_FACTOR = 16;

    private final long baseNanos;
    private final Membership members;
    private final Map<Id, Long> byPeer = new HashMap<>();
    /** The slowest answer of the last session with each peer that finished. */
    private final Map<Id, Long> lastSlowest = new HashMap<>();

    ScanTimeouts(NodeConfig config, Membership members) {
        this.baseNanos = nanos(config.rtoMaxMillis());
        this.members = members;
    }

    /**
     * When to send a request to {@code peer} again if it is still unanswered: twice the peer's RTO, or twice the
     * slowest answer seen from it ({@code slowestNowNanos} in this session, or in the last one that finished), so
     * that a peer still scanning is seldom asked to scan again. Until the peer has answered once, in this session or
     * the last one that finished, its scan time is not known (at 200,000 values a scan takes seconds where the RTO on
     * a LAN is milliseconds): no sooner than a quarter of the wait for it, then. Once it has answered this session's
     * first request, a scan of the whole arc, it is known: every later request covers less of the arc, or is a digest
     * of at most {@code digestEntriesMax} records, and the quarter would make each dropped digest cost seconds.
     */
    long resendAfter(Id peer, long slowestNowNanos) {
        Long last = lastSlowest.get(peer);
        long slowest = Math.max(slowestNowNanos, last == null ? 0 : last);
        long floor = last == null && slowestNowNanos == 0 ? of(peer) / 4 : 0;
        return Math.max(floor, 2 * Math.max(members.rtoNanos(peer), slowest));
    }

    /** The wait for {@code peer}'s next answer. */
    long of(Id peer) {
        return byPeer.getOrDefault(peer, baseNanos);
    }

    /** An answer from {@code peer} did not come within {@code waitedNanos}: the next wait is twice as long. */
    void timedOut(Id peer, long waitedNanos) {
        long next = Math.min(baseNanos * CAP_FACTOR, Math.max(of(peer), 2 * waitedNanos));
        byPeer.put(peer, next);
    }

    /** A session with {@code peer} finished; its slowest answer took {@code slowestNanos}. */
    void sessionDone(Id peer, long slowestNanos) {
        lastSlowest.put(peer, slowestNanos);
        long now = of(peer);
        if (slowestNanos < now / 4) {
            long next = Math.max(baseNanos, now / 2);
            if (next == baseNanos) {
                byPeer.remove(peer);
            } else {
                byPeer.put(peer, next);
            }
        }
    }

    /** {@code peer} left the leaf set. */
    void forget(Id peer) {
        byPeer.remove(peer);
        lastSlowest.remove(peer);
    }
}
