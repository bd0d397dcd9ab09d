package io.rattan.core.node;

import io.rattan.api.Id;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What this node knows of each peer's health: an RTT estimator, whether it is suspected (a request timed out and a
 * probe is under way), and which peers were recently declared dead, so third parties' stale lists do not bring
 * them back. A peer that is no neighbour and has not spoken to us for {@link #IDLE_NANOS} is forgotten (see
 * {@link #forgetIdle}). Owned by the node's event loop.
 */
final class Peers implements RttView {

    /** Per-peer state, its RTT estimate included (one object: there are hundreds); only this class changes it. */
    private static final class Peer extends RttEstimator {
        boolean suspect;
        boolean probing;
        // Never heard: older than any time, including a real clock's negative nanoTime.
        long lastHeardNanos = Long.MIN_VALUE;
        // When this node's requests to it began to go unanswered (the first timeout since its last answer); NONE while
        // they are answered.
        long unansweredSinceNanos = NONE;
    }

    /**
     * How long a peer that is neither in the routing table nor in the leaf set is remembered after it last spoke to
     * us: the gateways a node served, the replicas that answered its gets, the nodes of its iterative lookups. Long
     * enough that a gateway's next get to the same replicas or path finds their RTTs measured; short enough that a
     * node of a large overlay does not keep state for every node it ever heard from (docs/history.md, "Quiet peers are
     * forgotten").
     */
    static final long IDLE_NANOS = 5L * 60 * 1_000_000_000L;
    /**
     * How long a peer's answers must stop for its next answer to end a cut ({@link #answeredAfterCut}): as long as the
     * RTO a peer starts from. A peer this node could not reach that long has suspected it, or declared it dead, and
     * left it out of its puts meanwhile.
     */
    static final long CUT_OFF_NANOS = 1_000_000_000L;
    /**
     * How long a peer's answers must have stopped, to now, for {@link #answersStopped}: the longest RTO. A slow node's
     * answers stop for a second now and then, and with {@link #CUT_OFF_NANOS} here the keys around it would read three
     * replicas all the time; a node cut off one way stays silent for the whole cut.
     */
    static final long ANSWERS_STOPPED_NANOS = 5_000_000_000L;
    /** No span of unanswered requests: older than any time, as a never-heard peer's last-heard time is. */
    private static final long NONE = Long.MIN_VALUE;
    /** Slots a sweep visits per call, at least: a map of up to 1,024 slots is swept whole every 64 calls or faster. */
    private static final int SWEEP_SLOTS_MIN = 16;

    private final RttEstimator.Bounds rto;
    private final long deadMemoryNanos;
    private final Consumer<Id> suspicionChanged;
    // Looked up, iterated only to compute an order-free statistic (the median), or swept in slot order, which
    // depends only on the ids and the map's history: hash order cannot leak.
    private final IdMap<Peer> peers = new IdMap<>();
    private final Map<Id, Long> deadUntil = new LinkedHashMap<>();
    private int sweepCursor;

    Peers(long rtoInitialNanos, long rtoMinNanos, long rtoMaxNanos, long deadMemoryNanos) {
        this(rtoInitialNanos, rtoMinNanos, rtoMaxNanos, deadMemoryNanos, id -> { });
    }

    /**
     * {@code suspicionChanged} runs each time a peer becomes suspect or stops being one (a suspect is left out of
     * replica sets, so repair must see the change at once, not when the probe declares the peer dead).
     */
    Peers(long rtoInitialNanos, long rtoMinNanos, long rtoMaxNanos, long deadMemoryNanos,
          Consumer<Id> suspicionChanged) {
        this.rto = new RttEstimator.Bounds(rtoInitialNanos, rtoMinNanos, rtoMaxNanos);
        this.deadMemoryNanos = deadMemoryNanos;
        this.suspicionChanged = suspicionChanged;
    }

    private void clearSuspicion(Id id, Peer p) {
        if (p.suspect) {
            p.suspect = false;
            suspicionChanged.accept(id);
        }
    }

    private Peer get(Id id) {
        // Not computeIfAbsent: its capturing lambda is an allocation on every message heard.
        Peer p = peers.get(id);
        if (p == null) {
            p = new Peer();
            peers.put(id, p);
        }
        return p;
    }

    private static final int MEDIAN_REFRESH_SAMPLES = 64;
    private long median = -1;
    private int samplesSinceMedian = MEDIAN_REFRESH_SAMPLES;

    /**
     * Records an RTT sample for a peer, the answer to a request sent at {@code sentAtNanos}; returns whether that
     * answer ends a cut ({@link #answeredAfterCut}).
     */
    boolean sample(Id id, long rttNanos, long sentAtNanos) {
        Peer p = get(id);
        p.sample(rttNanos);
        samplesSinceMedian++;
        return answeredAfterCut(p, sentAtNanos);
    }

    /** Recomputed every {@value #MEDIAN_REFRESH_SAMPLES} samples: it moves slowly and costs a sort. */
    @Override
    public long medianSrttNanos() {
        if (samplesSinceMedian >= MEDIAN_REFRESH_SAMPLES) {
            samplesSinceMedian = 0;
            long[] all = new long[peers.size()];
            int[] count = {0};
            peers.forEachValue(p -> {
                if (p.hasSample()) {
                    all[count[0]++] = p.srttNanos();
                }
            });
            int n = count[0];
            if (n == 0) {
                median = -1;
            } else {
                Arrays.sort(all, 0, n);
                median = all[n / 2];
            }
        }
        return median;
    }

    /** The smoothed RTT, or -1 when not measured. */
    @Override
    public long srttNanos(Id id) {
        Peer p = peers.get(id);
        return p == null ? -1 : p.srttNanos();
    }

    long rtoNanos(Id id) {
        Peer p = peers.get(id);
        return p == null ? rto.initialNanos() : p.rtoNanos(rto);
    }

    boolean isSuspect(Id id) {
        Peer p = peers.get(id);
        return p != null && p.suspect;
    }

    /** The peer spoke to us directly: it is alive, whatever we believed. */
    void heardFrom(Id id, long nowNanos) {
        // Nearly always empty: the check spares hashing an id on every message heard.
        if (!deadUntil.isEmpty()) {
            deadUntil.remove(id);
        }
        Peer p = get(id);
        p.lastHeardNanos = nowNanos;
        clearSuspicion(id, p);
    }

    /**
     * A request to the peer timed out: its timeout backs off and it is suspected until it speaks again. Returns true
     * when a probe is to start now ({@code mayProbe} and none under way); the caller then reports its outcome to
     * {@link #probeAnswered} or {@link #probeLost}.
     */
    boolean suspect(Id id, boolean mayProbe) {
        Peer p = get(id);
        p.backoff(rto);
        if (!p.suspect) {
            p.suspect = true;
            suspicionChanged.accept(id);
        }
        if (p.probing || !mayProbe) {
            return false;
        }
        p.probing = true;
        return true;
    }

    void probeAnswered(Id id) {
        Peer p = get(id);
        p.probing = false;
        clearSuspicion(id, p);
    }

    /**
     * The probe started at {@code probeStartedNanos} got no answer. Returns true when the peer is to be declared dead:
     * a lost probe does not outweigh other traffic heard from the peer since it was sent.
     */
    boolean probeLost(Id id, long probeStartedNanos) {
        Peer p = get(id);
        p.probing = false;
        if (p.lastHeardNanos > probeStartedNanos) {
            clearSuspicion(id, p);
            return false;
        }
        return true;
    }

    /** A request to the peer timed out at {@code nowNanos}: its answers stop from now, unless they had already. */
    void unanswered(Id id, long nowNanos) {
        Peer p = get(id);
        if (p.unansweredSinceNanos == NONE) {
            p.unansweredSinceNanos = nowNanos;
        }
    }

    /**
     * The peer answered a request of this node's sent at {@code sentAtNanos} (in time or late): returns whether that
     * ends a cut, the first answer after this node's requests went unanswered, to a request sent
     * {@link #CUT_OFF_NANOS} or more after the first of them timed out: every request sent in between was lost, not
     * late. A slow node answers late, but answers what it was sent first first; it ends its span with the answer to an
     * old request. Hearing the peer's own requests does not end the span: under a one-way cut it still speaks, never
     * answers, and so stays a member of this node's leaf set while this node is dead to it.
     */
    private static boolean answeredAfterCut(Peer p, long sentAtNanos) {
        long since = p.unansweredSinceNanos;
        if (since == NONE) {
            return false;
        }
        p.unansweredSinceNanos = NONE;
        return sentAtNanos - since >= CUT_OFF_NANOS;
    }

    /**
     * Whether the peer has left this node's requests unanswered for {@link #ANSWERS_STOPPED_NANOS} or more, to
     * {@code nowNanos}: the span whose first answer ends a cut ({@link #answeredAfterCut}) is open, and long.
     */
    boolean answersStopped(Id id, long nowNanos) {
        Peer p = peers.get(id);
        return p != null && p.unansweredSinceNanos != NONE
                && nowNanos - p.unansweredSinceNanos >= ANSWERS_STOPPED_NANOS;
    }

    /** Drops what is known of a peer that is no neighbour, without marking it dead. */
    void forget(Id id) {
        peers.remove(id);
    }

    void declareDead(Id id, long nowNanos) {
        peers.remove(id);
        deadUntil.put(id, nowNanos + deadMemoryNanos);
    }

    boolean isRecentlyDead(Id id, long nowNanos) {
        if (deadUntil.isEmpty()) {
            return false;
        }
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

    /**
     * Forgets, a few map slots per call, the peers not heard from within {@link #IDLE_NANOS} that are not being
     * probed and that {@code neighbour} does not claim. Each call visits 1/64 of the map's slots (at least
     * {@value #SWEEP_SLOTS_MIN}), so called once a second it passes over every peer about once a minute whatever the
     * map's size, at a cost spread evenly over the calls.
     */
    void forgetIdle(long nowNanos, Predicate<Id> neighbour) {
        if (peers.size() == 0) {
            return;
        }
        int slots = Math.max(SWEEP_SLOTS_MIN, peers.capacity() >>> 6);
        sweepCursor = peers.sweep(sweepCursor, slots,
                (id, p) -> isIdle(p, nowNanos) && !p.probing && !neighbour.test(id));
    }

    // Compared as a difference, not against now - IDLE_NANOS, so a clock near Long.MIN_VALUE cannot wrap around.
    private static boolean isIdle(Peer p, long nowNanos) {
        return p.lastHeardNanos == Long.MIN_VALUE || nowNanos - p.lastHeardNanos > IDLE_NANOS;
    }

    int size() {
        return peers.size();
    }

    /** Whether the peer has ever spoken to us directly (since we last forgot it). */
    boolean hasHeardFrom(Id id) {
        Peer p = peers.get(id);
        return p != null && p.lastHeardNanos != Long.MIN_VALUE;
    }

    boolean knows(Id id) {
        return peers.get(id) != null;
    }

    /** Forgets dead-marks that have run out; keeps the map bounded by the churn of one memory period. */
    void expireDeadMarks(long nowNanos) {
        if (deadUntil.isEmpty()) {
            // Nearly always, and iterating even an empty LinkedHashMap allocates an iterator once a second per node.
            return;
        }
        for (Iterator<Long> it = deadUntil.values().iterator(); it.hasNext(); ) {
            if (it.next() <= nowNanos) {
                it.remove();
            }
        }
    }
}
