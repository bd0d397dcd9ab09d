package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.SecretBinding;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntToLongFunction;

/**
 * One put the workload made, and what the checker learned of it since: its acknowledgement, its remove, the copies
 * disk faults destroyed, the clock faults it met and where its tombstone was seen. Touched only from the world's
 * thread.
 */
final class PutRecord {
    final Id key;
    final Bytes value;
    final Bytes hash;
    /** The secret its client holds. */
    final Bytes secret;
    /** What its client bound it to and removes it with: its remove proof (the secret itself with raw-secrets). */
    final Bytes sent;
    /** Where its value and its tombstone are stored ({@code StoredRecord.slot}). */
    final Bytes slot;
    final int ttlSeconds;
    final long startNanos;
    long ackNanos = -1;
    long removeStartNanos = Long.MAX_VALUE;
    long removeAckNanos = Long.MAX_VALUE;
    boolean lostToDiskFaults;
    /** Liars that acknowledged a copy of this put to its gateway without storing it (null: none). */
    Set<Integer> liarAckers;
    /** A liar dropped this put, routed through it (it answered the gateway in the root's place). */
    boolean droppedByLiar;
    /** Liars that acknowledged a tombstone of this value to its remove's gateway without writing it (null: none). */
    Set<Integer> liarRemoveAckers;
    /** A liar put these bytes under this key with a binding of its own while this put was on its way. */
    boolean racedByLiar;
    /** A liar dropped a remove of this value, routed through it (it answered the gateway in the root's place). */
    boolean removeDroppedByLiar;
    /** Acknowledged short of W copies because liars' acks made up the rest: rules 1, 5 and 6 do not hold it. */
    boolean ackedOnLiarsWord;
    // Counted among the losses (once acknowledged and lost).
    boolean lossCounted;
    // Its remove was acknowledged, and then at some instant disk faults had destroyed every tombstone of it.
    boolean removeUndone;
    // A disk fault hit a node holding a record of it while its remove was under way: a tombstone written then may be
    // gone before the remove's OK arrives (rule 2a's excuse).
    boolean faultDuringRemove;
    // Some node held a copy while its clock changed: the copy's expiry moved by the change.
    boolean clockTainted;
    // The gateway's expiry clock was more than S ahead (behind) when it stamped the expiry: the value may live
    // longer (shorter) than its true expiry allows; the root's cap (its own clock + TTL + 2 S) bounds the first.
    boolean stampedLate;
    boolean stampedEarly;
    // The gateway the put started at (negative: none serving), and whether its clock was read yet (gatewayClock).
    private final int gateway;
    private boolean gatewayClockRead;
    // Nodes seen holding this value's tombstone (and not since losing it to a disk fault), with when first seen.
    final SortedMap<Integer, Long> tombstoneAt = new TreeMap<>();
    // For rule 1's diagnosis: the live holders when it was acknowledged, and nodes a disk fault took it from.
    List<Integer> holdersAtAck = List.of();
    final Set<Integer> lostAt = new TreeSet<>();
    // Of those, the nodes that lost it with their whole disk (the others, to a power loss).
    final Set<Integer> diskLostAt = new TreeSet<>();

    PutRecord(Id key, Bytes value, Bytes secret, Bytes sent, int ttlSeconds, long startNanos, int gateway) {
        this.gateway = gateway;
        this.key = key;
        this.value = value;
        this.hash = value.sha256();
        this.secret = secret;
        this.sent = sent;
        this.slot = SecretBinding.slotOpenedBy(sent, key, hash);
        this.ttlSeconds = ttlSeconds;
        this.startNanos = startNanos;
    }

    /**
     * Whether a liar was this put's gateway and refused it for its origin's rate or share at the root: the liar's own
     * puts on the peer port spent what its clients' puts count against there ({@link PeerFlood}).
     */
    boolean overLiarsShare(Set<Integer> liars, Message reply) {
        return liars.contains(gateway) && reply instanceof PutReply r
                && (r.status() == Status.QUOTA_EXCEEDED || r.status() == Status.RATE_LIMITED);
    }

    /** Its earliest true expiry: its start plus its TTL (the gateway stamps the expiry after the start). */
    long earliestExpiryNanos() {
        return startNanos + ttlSeconds * 1_000_000_000L;
    }

    /**
     * Reads the gateway's expiry-clock error ({@code errorOf}) at the put's start and again at its OK: it stamped in
     * between, so its stamp counts as more than {@code boundMillis} late (early) only if it was so at both. A gateway
     * holds a put while its clock may be off ({@code ClockWait}) and stamps it once set right.
     */
    void gatewayClock(IntToLongFunction errorOf, long boundMillis) {
        long error = gateway >= 0 ? errorOf.applyAsLong(gateway) : 0;
        stampedLate = error > boundMillis && (stampedLate || !gatewayClockRead);
        stampedEarly = error < -boundMillis && (stampedEarly || !gatewayClockRead);
        gatewayClockRead = true;
    }

    boolean acked() {
        return ackNanos >= 0;
    }

    /** {@code liars} (null: none yet) with {@code liar} added. */
    static Set<Integer> with(Set<Integer> liars, int liar) {
        Set<Integer> out = liars == null ? new TreeSet<>() : liars;
        out.add(liar);
        return out;
    }

    /** The value as a violation's detail names it. */
    String name() {
        return "value " + hash.toHex().substring(0, 8) + " of key " + key.shortHex();
    }
}
