package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root's side of a put or remove: it writes its own copy and fans the request out to the other replicas it
 * sees, then answers the gateway once the outcome is known ({@link PutQuorum}, {@link RemoveTally}). Owned by the
 * node's event loop.
 */
final class ReplicaCoordinator {

    private static final Logger log = LoggerFactory.getLogger(ReplicaCoordinator.class);

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final PlantedBugs bugs;
    /** Told of a replica a put's copy may not have reached (a storage fault, no answer): repair owes it a session. */
    private final Consumer<Contact> missedCopy;
    /** The gateways that watch keys here, told of what this node writes as root. */
    private final Watchers watchers;
    private final OriginMeter origins;

    ReplicaCoordinator(NodeContext ctx, Membership members, LocalReplica replica) {
        this(ctx, members, replica, PlantedBugs.NONE, c -> { }, new Watchers(ctx, members, replica));
    }

    ReplicaCoordinator(NodeContext ctx, Membership members, LocalReplica replica, PlantedBugs bugs,
                       Consumer<Contact> missedCopy, Watchers watchers) {
        this.ctx = ctx;
        this.watchers = watchers;
        this.members = members;
        this.replica = replica;
        this.bugs = bugs;
        this.missedCopy = missedCopy;
        OriginLimits limits = ctx.config().origin();
        this.origins = new OriginMeter(new OriginLimits(limits.proofsRequired() && !bugs.originsUnchecked(),
                bugs.originsUnmetered() ? OriginLimits.OFF : limits.putsPerSecond(),
                bugs.originsUnmetered() ? OriginLimits.OFF : limits.storageBytes()), ctx.clock());
    }

    /**
     * Stores {@code p} here if this node is a replica, and at every other replica; answers OK once W distinct nodes
     * hold it, this node's own write counting as one. The replicas asked are those of its view, and also the suspects
     * among the k closest (a node whose event loop stalled suspects every neighbour at once, and they are alive).
     * With fewer than W nodes to ask it refuses at once: an overlay that really has fewer nodes than W runs with a
     * smaller W (a one-node trial with W = 1), so a short view here means missing neighbours, never a small overlay.
     */
    void put(PutRequest p, boolean fromOrigin) {
        ErrorReply refused = origins.check(ctx, p, fromOrigin);
        if (refused != null) {
            log.debug("{} refuses a put of {} from origin {}: {}", ctx.tag(), p.key().shortHex(), p.origin(),
                    refused.detail());
            ctx.listener().originPutRefused(refused.status());
            ctx.outbox().replyToOrigin(p, new PutReply(refused.status(), 0, refused.detail()));
            return;
        }
        StoredRecord record = replica.recordOf(p);
        Set<Contact> union = new LinkedHashSet<>(members.replicaSet(p.key()));
        union.addAll(members.replicaSetWithSuspects(p.key()));
        List<Contact> replicas = List.copyOf(union);
        int needed = ctx.config().writeQuorum();
        if (bugs.putAckBelowQuorum()) {
            needed = Math.max(1, needed - 1);
        }
        if (replicas.size() < needed) {
            ctx.outbox().replyToOrigin(p, new PutReply(Status.UNAVAILABLE, 0, "only " + replicas.size()
                    + " of the " + needed + " nodes a put needs are in view"));
            return;
        }
        PutQuorum quorum = new PutQuorum(needed, reply -> ctx.outbox().replyToOrigin(p, reply));
        if (!replicas.contains(ctx.self())) {
            if (isSwap(p)) {
                // Only a replica decides a swap, on its own copy: copies sent from outside them carry no condition.
                ctx.outbox().replyToOrigin(p, new PutReply(Status.UNAVAILABLE, 0, "swap not decided: this node is "
                        + "not among the key's replicas"));
                return;
            }
            askReplicas(p, record, replicas, quorum, null, false);
            return;
        }
        if (isSwap(p)) {
            // Only the k closest of this node's view: an answer from beyond them does not meet the W that stored.
            SwapRead.read(ctx, members, p.key(), record.valueHash(), members.replicaSet(p.key()),
                    read -> writeOwn(p, record, replicas, quorum, read),
                    why -> ctx.outbox().replyToOrigin(p, new PutReply(Status.UNAVAILABLE, 0, "swap not decided: "
                            + why)));
            return;
        }
        writeOwn(p, record, replicas, quorum, List.of());
    }

    /**
     * Writes this node's own copy, off the node's loop, after the versions of a swap's read ({@code read}; none for
     * other puts), and asks the peers once it is written: a copy the tombstone rule refuses here goes nowhere. The own
     * copy counts when it is durable (and not if this node's clock judges it expired), so it is outstanding until
     * then like a peer's.
     */
    private void writeOwn(PutRequest p, StoredRecord record, List<Contact> replicas, PutQuorum quorum,
                          List<ReplicaRecord> read) {
        quorum.asked();
        replica.offLoop(() -> {
            if (!read.isEmpty()) {
                replica.acceptReplicas(read);
            }
            return replica.storeForPut(record, p.condition());
        }, (verdict, failure) -> {
            StoreException e = LocalReplica.storeFault(failure);
            if (e != null) {
                log.warn("{} cannot store a put of {} here: {}", ctx.tag(), p.key().shortHex(), e.toString());
                if (isSwap(p)) {
                    // A swap is decided by the root's own write: copies sent to the peers without it would let every
                    // racing swap from one version win (docs/history.md).
                    ctx.outbox().replyToOrigin(p, new PutReply(LocalReplica.statusOf(e), 0, "swap not decided: "
                            + e.getMessage()));
                    return;
                }
                // Counted once the peers are asked: decided now, the put would fail before they could make W.
                askReplicas(p, record, replicas, quorum, LocalReplica.statusOf(e), false);
            } else if (!verdict.stored()) {
                ctx.outbox().replyToOrigin(p, new PutReply(verdict.refused(), 0, verdict.detail(),
                        verdict.currentSeq()));
            } else {
                watchers.stored(List.of(record));
                askReplicas(p, record, replicas, quorum, null, true);
            }
        });
    }

    /** An owned put with a condition: decided only by a replica's own write, after it read the others. */
    private static boolean isSwap(PutRequest p) {
        return p.stamp() != null && !p.condition().isNone();
    }

    /** Asks every other replica for a copy, then counts this node's own: failed, durable (later), or none. */
    private void askReplicas(PutRequest p, StoredRecord record, List<Contact> replicas, PutQuorum quorum,
                             Status selfFault, boolean selfStored) {
        Set<Id> asked = new HashSet<>();
        asked.add(ctx.self().id());
        for (Contact r : replicas) {
            askToStore(p, record, r, quorum, asked);
        }
        if (selfFault != null) {
            quorum.failed(selfFault);
        } else if (selfStored && !replica.counts(record)) {
            // Held but expired by this node's clock: no more a copy of the put than a pushed one would be.
            quorum.answered(false);
        } else if (selfStored) {
            // A sync that never returns (a hung disk) fails this copy as an I/O fault after a bound: DurableWait.
            DurableWait.await(ctx, replica, true, () -> {
                ctx.outbox().ackToGateway(p.origin(), p.originRequestId(), PutAck.of(replica.toWire(record)));
                quorum.answered(true);
            }, () -> quorum.failed(Status.IO_ERROR));
        }
        quorum.check();
    }

    /** A put's copy for a peer, naming the gateway it acknowledges to ({@link PutAck}). */
    private StoreReplicas copyOf(PutRequest p, StoredRecord record) {
        return new StoreReplicas(List.of(replica.toWire(record)), p.origin(), p.originRequestId());
    }

    /** A peer's answer to a copy: stored, refused, or a typed storage fault. */
    private void answered(PutQuorum quorum, Contact from, Message reply) {
        if (reply instanceof ErrorReply e && (e.status() == Status.STORAGE_FULL || e.status() == Status.IO_ERROR)) {
            missedCopy.accept(from);
            quorum.failed(e.status());
        } else {
            quorum.answered(reply instanceof StoreAck a && a.accepted() > 0);
        }
    }

    /**
     * Asks replica {@code r} (unless already asked) to store {@code record}. When {@code r} is late, it is suspected
     * and so leaves this node's view of the replica set: the node that takes its place there is asked too, while
     * {@code r}'s own answer still counts if it comes, and the copy is sent again ({@link Copy}).
     */
    private void askToStore(PutRequest p, StoredRecord record, Contact r, PutQuorum quorum, Set<Id> asked) {
        if (!asked.add(r.id())) {
            return;
        }
        quorum.asked();
        long timeout = nanos(ctx.config().requestTimeoutMillis());
        Copy copy = new Copy(copyOf(p, record), r, quorum, ctx.now() + timeout);
        // The remaining time as of now: a copy asked for later must not carry time that has passed since.
        PatientRequest.send(ctx, members, r, copyOf(p, record), timeout,
                () -> {
                    copy.resend();
                    if (!quorum.isDecided() && !ctx.stopped()) {
                        for (Contact c : members.replicaSet(p.key())) {
                            askToStore(p, record, c, quorum, asked);
                        }
                    }
                },
                ReplyHandler.of(reply -> copy.answered(reply.body()), copy::timedOut));
    }

    /**
     * One replica's copy of a put. A late copy may be lost (a dropped message), so it goes again at doubling intervals
     * from the replica's RTO until the copy or a resend is answered or the request timeout passes. The first answer
     * counts toward W; with none in time, repair owes the replica a session. Until a copy gets there the replica lacks
     * the put, and a get it serves alone misses it, so resends go on for the whole timeout rather than a fixed few
     * (docs/history.md, "A late copy goes again until the request timeout"). Doubling from the RTO floor, that is at
     * most {@code ceil(log2(timeout / RTO))} resends: six with the defaults' 100 ms and 5 s; a replica slow enough to
     * raise its RTO gets fewer.
     */
    private final class Copy {
        private final StoreReplicas copy;
        private final Contact to;
        private final PutQuorum quorum;
        private final long deadlineNanos;
        private long intervalNanos;
        private boolean counted;

        Copy(StoreReplicas copy, Contact to, PutQuorum quorum, long deadlineNanos) {
            this.copy = copy;
            this.to = to;
            this.quorum = quorum;
            this.deadlineNanos = deadlineNanos;
        }

        void resend() {
            long left = deadlineNanos - ctx.now();
            if (counted || ctx.stopped() || left <= 0) {
                return;
            }
            intervalNanos = Math.min(Math.max(2 * intervalNanos, members.rtoNanos(to.id())), left);
            ctx.outbox().request(to, copy, intervalNanos,
                    ReplyHandler.of(reply -> answered(reply.body()), this::resend));
        }

        void answered(Message reply) {
            if (!counted) {
                counted = true;
                ReplicaCoordinator.this.answered(quorum, to, reply);
            }
        }

        void timedOut() {
            if (!counted) {
                counted = true;
                missedCopy.accept(to);
                quorum.answered(false);
            }
        }
    }

    /** Removes at every replica this node sees, itself included; answers once every replica answered or timed out. */
    void remove(RemoveRequest r) {
        List<Contact> replicas = members.replicaSet(r.key());
        RemoveTally tally = new RemoveTally(replicas.size(),
                status -> ctx.outbox().replyToOrigin(r, new RemoveReply(status, "")));
        // Names the gateway, which each replica that writes the tombstone tells itself (this one included).
        RemoveReplica ask = new RemoveReplica(r.key(), r.valueHash(), r.secret(), r.ttlSeconds(), r.origin(),
                r.originRequestId());
        for (int i = 0; i < replicas.size(); i++) {
            Contact c = replicas.get(i);
            int slot = i;
            if (c.equals(ctx.self())) {
                // Off the loop; a store too busy to take it answers as a storage fault.
                replica.offLoop(() -> removeHere(r), (done, failure) ->
                        tally.answered(slot, PeerWrites.removed(ctx, watchers, ask, done, failure)));
                continue;
            }
            ctx.outbox().request(c, ask, members.rtoNanos(c.id()), ReplyHandler.of(
                    reply -> tally.answered(slot, reply.body() instanceof RemoveReplicaReply rr ? rr.status()
                            : reply.body() instanceof ErrorReply er ? asked(er.status()) : Status.INTERNAL),
                    () -> {
                        members.peerTimedOut(c);
                        tally.answered(slot, Status.TIMEOUT);
                    }));
        }
    }

    /**
     * A replica's error answer to a remove, as the tally counts it: one that does not serve the namespace (an
     * {@link ErrorReply} UNAVAILABLE) did not answer, where a replica that declined to look answers
     * {@code RemoveReplicaReply(UNAVAILABLE)}: only that one outranks another replica's NOT_FOUND
     * ({@link RemoveTally}).
     */
    private static Status asked(Status error) {
        return error == Status.UNAVAILABLE ? Status.TIMEOUT : error;
    }

    /** Removes at this replica (off the loop: touches only the store); a storage fault is this replica's answer. */
    private TombstoneRule.Removal removeHere(RemoveRequest r) {
        try {
            return replica.removal(r.key(), r.valueHash(), r.secret(), r.ttlSeconds());
        } catch (StoreException e) {
            log.warn("{} cannot store a remove of {} here: {}", ctx.tag(), r.key().shortHex(), e.toString());
            return new TombstoneRule.Removal(LocalReplica.statusOf(e), null);
        }
    }
}
