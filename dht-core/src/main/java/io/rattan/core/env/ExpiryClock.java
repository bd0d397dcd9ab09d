package io.rattan.core.env;

import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clock a node judges expiry by: wall-clock time that never moves backwards, ignores jumps of the wall clock, is
 * corrected by its peers' clocks, and survives restarts through a high-water mark persisted in the store
 * (docs/node.md, "Clock-safe TTLs").
 *
 * <ul>
 *   <li><b>Jumps are ignored.</b> Between readings, time advances by the monotonic clock ({@code nanoTime}). The
 *       wall clock is followed only while it agrees with that prediction within the skew bound S (so NTP's slewing
 *       is followed); a step of more than S either way is ignored.</li>
 *   <li><b>Never backwards.</b> A reading is never below the previous one, nor below the persisted mark: the mark
 *       is written ahead of the readings (by S/2), so after a restart the clock starts at least where it was.</li>
 *   <li><b>Peers correct it.</b> Pongs carry the answering node's expiry time; the median offset of the last nine
 *       hosts heard, one sample each (the caller names each sample by its host), a host that told no time counting
 *       as agreeing, when they may decide ({@link ClockVotes}) and it is beyond S, moves this clock, and the samples
 *       move with it: until
 *       peers have confirmed it once since boot, by up to {@link #FIRST_CORRECTION_MAX_MILLIS} either way at once (a
 *       larger offset is refused and the clock stays unsettled: its machine's clock needs setting), afterwards
 *       forward by at most 2 S at once and 2 S a minute in all (below), and backward only until the clock has
 *       settled (below), after which it holds still until true time catches up.</li>
 *   <li><b>Forward is capped once confirmed.</b> A monotonic clock drifts milliseconds a minute, so once peers have
 *       confirmed this clock, honest peers never need to move it far forward; a majority of wrong or lying peers
 *       could, and a clock pushed an hour ahead purges live values and drops tombstones an hour early (a removed
 *       value comes back). So peers then move it forward by at most {@code 2 S} per correction and {@code 2 S} per
 *       minute of monotonic time in all (an allowance that refills at that rate, up to {@code 2 S}): wrong peers
 *       drag it forward by at most {@code 2 S} plus {@code 2 S} a minute for as long as they outnumber the right
 *       ones.</li>
 *   <li><b>Settled.</b> After a boot the wall clock is not trusted until peers that may decide have confirmed it,
 *       or 30 s passed with no peer telling a time (a node alone) or with too few to decide among hosts that told
 *       none (a cluster starting): until then
 *       the mark is not moved and nothing is purged ({@link #settled}), so a clock that booted an hour ahead neither
 *       purges young records nor persists its error. A clock whose first correction was refused (more than
 *       {@link #FIRST_CORRECTION_MAX_MILLIS}) does not settle alone, and one that had is unsettled again: it is known
 *       to be far off.</li>
 * </ul>
 *
 * <p>A node whose own clock is not settled sends 0 in its pongs (nothing to learn from it). Thread-safe
 * (synchronized): the store may read it from another thread than the node's loop.
 */
public final class ExpiryClock implements Clock {

    /** S, the documented clock-error bound: default for every node. */
    public static final long SKEW_BOUND_MILLIS = 500;
    /** The most two expiry clocks, each within S of the true time, differ by: 2 S. */
    public static final long SPREAD_BOUND_MILLIS = 2 * SKEW_BOUND_MILLIS;
    /**
     * The most peers may move a clock they have not confirmed since its boot, either way: twice the hour the fault
     * simulator steps clocks by. Unbounded, the first hosts a node hears could push it a year ahead, and the error
     * would be persisted (the mark) and purge everything it holds.
     */
    public static final long FIRST_CORRECTION_MAX_MILLIS = 2 * 3_600_000L;
    private static final Logger log = LoggerFactory.getLogger(ExpiryClock.class);
    private static final long SETTLE_ALONE_NANOS = 30_000_000_000L;
    /** The forward allowance, in S, and how much of it comes back per minute of monotonic time (the same). */
    private static final int FORWARD_ALLOWANCE_IN_S = 2;
    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final Clock raw;
    private final long skewMillis;
    private final long bootNanos;
    // What the last few hosts heard said: one wrong host answering often, or under many ids, counts once.
    private final ClockVotes votes;
    private final boolean threeHostsDecide;
    private long anchorMillis;
    private long anchorNanos;
    private long last = Long.MIN_VALUE;
    private long persisted = Long.MIN_VALUE;
    private boolean settled;
    // Peers agreed on (or corrected) this clock at least once since boot: forward corrections are capped from then.
    private boolean confirmed;
    private long forwardAllowanceMillis;
    private long allowanceNanos;
    private boolean jumpSeen;
    // Peers said, before confirming this clock, that it is off by more than a first correction may move it.
    private boolean refused;
    // It booted with the wall clock more than S behind the persisted mark: it runs from the mark, behind by the time
    // the node was down, until peers confirm it.
    private boolean behindMark;
    private Store store;

    /** A clock over {@code raw} with skew bound {@code skewMillis}; {@link #attach} gives it its store. */
    public ExpiryClock(Clock raw, long skewMillis) {
        this(raw, skewMillis, false);
    }

    /**
     * As {@link #ExpiryClock(Clock, long)}; with {@code threeHostsDecide}, peers correct it by the rule before issue
     * 39's: every pong counts, asked for or not, the first three hosts that tell a time decide, and a correction
     * starts afresh (the fault simulator plants it, {@code CLOCK_THREE_HOSTS}, to show that its checker catches clock
     * liars).
     */
    public ExpiryClock(Clock raw, long skewMillis, boolean threeHostsDecide) {
        if (raw == null || skewMillis < 1) {
            throw new IllegalArgumentException("a raw clock and a positive skew bound are required");
        }
        this.raw = raw;
        this.skewMillis = skewMillis;
        this.bootNanos = raw.nanoTime();
        this.threeHostsDecide = threeHostsDecide;
        this.votes = new ClockVotes(threeHostsDecide, SPREAD_BOUND_MILLIS,
                SETTLE_ALONE_NANOS, bootNanos);
        this.anchorNanos = bootNanos;
        this.anchorMillis = raw.epochMillis();
        this.forwardAllowanceMillis = forwardAllowanceMax();
        this.allowanceNanos = bootNanos;
    }

    private long forwardAllowanceMax() {
        return FORWARD_ALLOWANCE_IN_S * skewMillis;
    }

    /** Reads the persisted mark from {@code s} (the clock starts no earlier) and persists it there from now on. */
    public synchronized void attach(Store s) {
        this.store = s;
        long mark = s.clockMark();
        if (mark > anchorMillis) {
            behindMark = mark - anchorMillis > skewMillis;
            log.info("expiry clock starts at its persisted mark, {} ms ahead of the wall clock", mark - anchorMillis);
            anchorMillis = mark;
            anchorNanos = raw.nanoTime();
        }
        persisted = Math.max(persisted, mark);
    }

    @Override
    public long nanoTime() {
        return raw.nanoTime();
    }

    @Override
    public synchronized long epochMillis() {
        long now = Math.max(last, predicted());
        last = now;
        if (settled && now > persisted) {
            persist(now + skewMillis / 2);
        }
        return now;
    }

    /**
     * The time by the anchor (the wall clock while it agrees within S, else the monotonic clock since the anchor),
     * not held by the last reading: what peers' offsets are measured against and corrections move. Measured against
     * a reading held still after a backward correction instead, the next offsets would be too small by the hold and
     * push the anchor back again, further than the peers are.
     */
    private long predicted() {
        long nanos = raw.nanoTime();
        long predicted = anchorMillis + (nanos - anchorNanos) / 1_000_000L;
        long wall = raw.epochMillis();
        if (Math.abs(wall - predicted) <= skewMillis) {
            anchorMillis = wall;
            anchorNanos = nanos;
            predicted = wall;
            jumpSeen = false;
        } else if (!jumpSeen) {
            jumpSeen = true;
            log.warn("wall clock is {} ms off the expiry clock: a jump, ignored for expiry", wall - predicted);
        }
        if (!settled && !refused && nanos - bootNanos >= SETTLE_ALONE_NANOS
                && (votes.noneTold() || votes.clusterStarting(nanos))) {
            settled = true;
        }
        return predicted;
    }

    private void persist(long mark) {
        if (store == null) {
            return;
        }
        try {
            store.clockMark(mark);
            persisted = mark;
        } catch (StoreException e) {
            // A full or failing disk: the next reading tries again.
            log.debug("expiry clock mark not persisted: {}", e.toString());
        }
    }

    /**
     * A peer's expiry time, {@code peerEpochMillis}, read from a reply that took {@code rttNanos} to come back:
     * the peer's time now is about its time plus half the round trip. {@code peer} names the sample's source: the
     * median is over distinct sources, and the caller names each host once (docs/node.md, "Clock-safe TTLs"). A
     * time of 0 or less is a peer whose own clock has not settled: heard, telling nothing ({@link ClockVotes}). Only a
     * peer this node {@code asked} the time (a leaf-set member) counts.
     */
    @Override
    public synchronized void peerTime(Object peer, long peerEpochMillis, long rttNanos, boolean asked) {
        if (!asked && !threeHostsDecide) {
            // Whom this node probes for its tables, others choose (docs/security.md, item 7); the rule before took
            // them all.
            return;
        }
        long nanos = raw.nanoTime();
        if (peerEpochMillis <= 0) {
            votes.heard(peer, null, nanos);
            return;
        }
        votes.heard(peer, peerEpochMillis + rttNanos / 2_000_000L - predicted(), nanos);
        if (!votes.decisive(nanos, confirmed)) {
            return;
        }
        long median = votes.median();
        if (Math.abs(median) > skewMillis && !correct(median)) {
            return;
        }
        settled = true;
        confirmed = true;
        refused = false;
    }

    /** Moves the clock by {@code offsetMillis}, within the bounds; false when the move is refused altogether. */
    private boolean correct(long offsetMillis) {
        if (!confirmed && Math.abs(offsetMillis) > FIRST_CORRECTION_MAX_MILLIS) {
            if (!refused) {
                log.error("expiry clock is {} ms off its peers' median, more than the {} ms a first correction may"
                        + " move it: not corrected, and nothing purged by it (set this machine's clock and restart)",
                        -offsetMillis, FIRST_CORRECTION_MAX_MILLIS);
            }
            refused = true;
            settled = false;
            votes.clear();
            return false;
        }
        long step = offsetMillis;
        if (offsetMillis > 0 && confirmed) {
            step = Math.min(offsetMillis, forwardAllowance());
            forwardAllowanceMillis -= step;
        }
        if (step == 0 || step < skewMillis && step < offsetMillis) {
            // Peers that keep saying it is far behind, with the allowance spent or trickling back: every pong.
            log.debug("expiry clock is {} ms behind its peers' median: moved {} ms, the forward allowance is spent",
                    offsetMillis, step);
        } else {
            log.warn("expiry clock is {} ms off its peers' median: corrected{}", -offsetMillis,
                    offsetMillis < 0 && settled ? " (it holds still until true time catches up)"
                            : step < offsetMillis ? " by " + step + " ms only (forward is capped once confirmed)" : "");
        }
        anchorMillis += step;
        if (offsetMillis < 0 && !settled) {
            // Nothing was persisted or purged by the unconfirmed time: it may go back, to the persisted mark.
            last = persisted;
        }
        votes.moved(step);
        return true;
    }

    /** What forward corrections may still add now: the allowance, refilled by the monotonic time since. */
    private long forwardAllowance() {
        long nanos = raw.nanoTime();
        long perMilli = MINUTE_NANOS / forwardAllowanceMax();
        long earned = (nanos - allowanceNanos) / perMilli;
        if (forwardAllowanceMillis + earned >= forwardAllowanceMax()) {
            forwardAllowanceMillis = forwardAllowanceMax();
            allowanceNanos = nanos;
        } else {
            forwardAllowanceMillis += earned;
            allowanceNanos += earned * perMilli;
        }
        return forwardAllowanceMillis;
    }

    @Override
    public boolean correctedByPeers() {
        return true;
    }

    /** Whether the clock has been confirmed since boot: until then nothing may be purged by it. */
    @Override
    public synchronized boolean settled() {
        return settled;
    }

    /**
     * Whether the clock has not settled since boot and a peer's time already differs from it by more than S, or it
     * booted with the wall clock more than S behind the persisted mark (it then runs from the mark, behind the true
     * time by however long the node was down): it may be far off until peers set it right. At a cluster's start no
     * peer's time is known (unsettled nodes send none), and the clock is not in doubt for that alone.
     */
    @Override
    public synchronized boolean inDoubt() {
        if (refused) {
            return true;
        }
        if (settled) {
            return false;
        }
        return behindMark || votes.anyBeyond(skewMillis);
    }

    @Override
    public synchronized boolean mayStamp() {
        return settled || !inDoubt() && !votes.noneHeard();
    }
}
