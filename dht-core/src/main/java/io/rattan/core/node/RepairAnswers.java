package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answering side of a repair session another node started ({@link RangeSync} is the starting side): a range
 * digest is answered with this node's sums of its parts, a digest with the entries this node lacks, and with its
 * tombstones of entries the sender holds live. Owned by the node's event loop.
 */
final class RepairAnswers {

    private static final Logger log = LoggerFactory.getLogger(RepairAnswers.class);
    /** Peers remembered in {@link #owedAtNanos} before the stale ones are dropped: a leaf set's worth, and more. */
    private static final int OWED_REMEMBERED = 64;
    /**
     * Range scans one peer may have running here at once: a session asks one range at a time, and may ask it again
     * while a slow scan is still running ({@link ResentRequest}), and the first answer serves them all.
     */
    static final int SCANS_PER_PEER = 2;

    private final NodeContext ctx;
    private final LocalReplica replica;
    private final ReplicaPairs pairs;
    private final SecretGuard secrets;
    private final SolicitedCopies solicited;
    private final PlantedBugs bugs;
    private final Function<Contact, ReplicaStream> streams;
    private final Predicate<Contact> owed;
    private final long owedGapNanos;
    /** When each peer was last owed a session for a digest it sent ({@link #answerRangeDigest}). */
    private final Map<Id, Long> owedAtNanos = new HashMap<>();
    /** Range scans running for each peer ({@link #SCANS_PER_PEER}). */
    private final Map<Id, Integer> scans = new HashMap<>();

    /**
     * {@code streams} gives the stream of copies to a peer; {@code owed} makes a peer due for a session, and says
     * whether it was not due already.
     */
    RepairAnswers(NodeContext ctx, LocalReplica replica, ReplicaPairs pairs, SecretGuard secrets, PlantedBugs bugs,
                  Function<Contact, ReplicaStream> streams, Predicate<Contact> owed, SolicitedCopies solicited) {
        this.ctx = ctx;
        this.solicited = solicited;
        this.replica = replica;
        this.pairs = pairs;
        this.secrets = secrets;
        this.bugs = bugs;
        this.streams = streams;
        this.owed = owed;
        this.owedGapNanos = NodeContext.nanos(ctx.config().settlingMillis());
    }

    /**
     * Answers a range digest with this node's sums of the same parts, over the keys it shares with the sender. A sender
     * that holds fewer than half as many of them as this node is owed a session ({@link Repair#owed}): a session
     * streams only what its starter holds, and a member that restarted on a lost disk before its neighbours found it
     * dead changed no one's view, so its own sessions are all that show it is nearly empty (not quite: the puts and the
     * sessions of others since its start reach it first). Not owed whenever a part merely holds more here: while two
     * members' views of the ring differ each counts keys the other leaves out, and sessions would ping-pong. At most
     * once per peer per settling window, so that a sender that cannot store (a full disk) is not owed a session each
     * time it asks (docs/history.md, "A nearly empty replica is owed a session back").
     *
     * <p>Only the arc the two share is read, whatever arc it names, and nothing for a peer that is no leaf-set member
     * (it shares no key with this node, so its sums are empty, as reading would find): a range costs this node a scan
     * of its store, and a stranger, or a member naming the whole ring, would otherwise make it read every record it
     * holds for a few bytes. A member with {@link #SCANS_PER_PEER} scans running here is not answered (its first
     * request's answer serves its resends).
     */
    void answerRangeDigest(Envelope e, Contact from, RangeDigest d) {
        int n = d.parts().size();
        if (n < 1 || n > 4 * RangeSync.PARTS) {
            log.debug("{} ignores a range digest of {} parts from {}", ctx.tag(), n, from);
            return;
        }
        boolean unbounded = bugs.repairScansUnbounded();
        if (!unbounded && scans.getOrDefault(from.id(), 0) >= SCANS_PER_PEER) {
            log.debug("{} ignores a range digest from {}: {} of its scans are running", ctx.tag(), from,
                    SCANS_PER_PEER);
            ctx.listener().repairRequestRefused(true);
            return;
        }
        KeyRange asked = new KeyRange(d.lo(), d.hi());
        List<KeyRange> parts = asked.split(n);
        KeyRange shared = unbounded ? asked : stranger(from) ? null : pairs.sharedArc(from, d.handoff());
        KeyRange read = shared == null ? null : asked.overlap(shared);
        if (read == null) {
            ctx.outbox().send(from.address(), e.requestId(), new RangeDigestReply(Collections.nCopies(n,
                    new RangeSum(0, 0))));
            return;
        }
        scans.merge(from.id(), 1, Integer::sum);
        RangeScan.sums(ctx, replica, parts, read, pairs.filter(from, d.handoff()), sums -> {
            scans.computeIfPresent(from.id(), (id, running) -> running > 1 ? running - 1 : null);
            if (sums != null && !ctx.stopped()) {
                ctx.outbox().send(from.address(), e.requestId(), new RangeDigestReply(sums));
                if (!d.handoff() && 2 * count(d.parts()) < count(sums) && !owedLately(from)
                        && owed.test(from)) {
                    owedAtNanos.put(from.id(), ctx.now());
                }
            }
        });
    }

    /**
     * True, and counted, when {@code from} is no leaf-set member. (An honest node whose view still differs from this
     * one's asks too: it gets the empty sums it always got, so nothing changes for it but that nothing is read.)
     */
    private boolean stranger(Contact from) {
        if (pairs.isPartner(from)) {
            return false;
        }
        log.debug("{} reads nothing for a range digest from {}, no member of its leaf set", ctx.tag(), from);
        ctx.listener().repairRequestRefused(false);
        return true;
    }

    private boolean owedLately(Contact peer) {
        long now = ctx.now();
        Long last = owedAtNanos.get(peer.id());
        if (last != null && now - last < owedGapNanos) {
            return true;
        }
        if (owedAtNanos.size() >= OWED_REMEMBERED) {
            owedAtNanos.values().removeIf(at -> now - at >= owedGapNanos);
        }
        return false;
    }

    private static long count(List<RangeSum> sums) {
        long n = 0;
        for (RangeSum s : sums) {
            n += s.count();
        }
        return n;
    }

    /**
     * Answers a digest with the entries this node lacks (or holds an older version of), and sends back its tombstone
     * for every entry the sender still holds as a live value, and its greater version of an owned one. Digests only
     * flow toward the nodes a sender sees as replicas, so without the second part a node holding a removed value it
     * was pushed while it was no replica (by a replica that missed the remove and came back) would learn of the remove
     * only if a tombstone holder started a session with it. A tombstone goes back only to a replica of its key (or the
     * next beyond) that this node can place ({@link SecretGuard}), as it carries the remove's secret: a node further
     * out that holds the removed value keeps it until it expires or until a replica's view takes it in (it answers no
     * get for the key meanwhile, being no replica).
     */
    void answerDigest(Envelope e, Contact from, Digest d) {
        List<DigestEntry> entries = d.entries();
        replica.readEach(ReplicaStream.Ref.of(entries), (held, failure) -> {
            if (failure != null) {
                log.warn("{} cannot answer a digest from {}: {}", ctx.tag(), from, failure.toString());
            } else {
                answerDigest(e, from, entries, held);
            }
        });
    }

    private void answerDigest(Envelope e, Contact from, List<DigestEntry> entries, List<Optional<StoredRecord>> held) {
        List<DigestEntry> want = new ArrayList<>();
        // Sent back: tombstones of values the sender still holds, and greater versions of its owned values.
        List<StoredRecord> sendBack = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            DigestEntry entry = entries.get(i);
            Optional<StoredRecord> have = held.get(i);
            if (entry.stampTag() != 0 || have.isPresent() && have.get().isOwned()) {
                owned(entry, have.orElse(null), want, sendBack);
                continue;
            }
            boolean lacks = entry.tombstone() ? have.isEmpty() || !have.get().tombstone() : have.isEmpty()
                    // The planted tombstone bug (test-only): a live copy that meets a tombstone here wins over it.
                    || bugs.tombstoneRuleOff() && have.get().tombstone();
            if (lacks) {
                want.add(entry);
            } else if (!entry.tombstone() && have.get().tombstone()) {
                sendBack.add(have.get());
            }
        }
        ctx.outbox().send(from.address(), e.requestId(), new DigestWant(want));
        solicited.asked(from, want);
        // A tombstone carries the secret that removed its value: only a replica of the key this node can place may have
        // it. (An owned value's versions carry no secret, only the owner's signature, and go to anyone holding older.)
        int found = sendBack.size();
        sendBack.removeIf(r -> !secrets.mayLearn(r, from));
        if (sendBack.size() < found) {
            log.debug("{} withholds {} tombstones from {}, which it cannot place among their keys' replicas", ctx.tag(),
                    found - sendBack.size(), from);
            ctx.listener().repairTombstonesWithheld(found - sendBack.size());
        }
        if (!sendBack.isEmpty()) {
            ReplicaStream s = streams.apply(from);
            sendBack.forEach(s::add);
        }
    }

    /**
     * An entry or a held record that is owned: the side with the lesser version takes the greater (sequence, then a
     * tombstone); of two versions the digest cannot order (one sequence, other data), each side takes the other's and
     * keeps the greater by {@link OwnedRule}. An unowned record under a slot's name (a forged tombstone) gives way to
     * the owned one.
     */
    private static void owned(DigestEntry entry, StoredRecord have, List<DigestEntry> want, List<StoredRecord> sendBack) {
        boolean ownedHere = have != null && have.isOwned();
        if (entry.stampTag() == 0) {
            sendBack.add(have);
            return;
        }
        if (!ownedHere) {
            want.add(entry);
            return;
        }
        if (entry.stampTag() == OwnedRecords.stampTag(have)) {
            return;
        }
        int c = OwnedRule.compareDigests(entry.seq(), entry.tombstone(), have.seq(), have.tombstone());
        if (c >= 0) {
            want.add(entry);
        }
        if (c <= 0) {
            sendBack.add(have);
        }
    }
}
