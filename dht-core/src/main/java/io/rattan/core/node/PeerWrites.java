package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What peers ask this node to write, accepted or refused where it arrives: a routed put outside the node's limits is
 * refused at every hop; copies (a put's fan-out, repair, hand-off) are kept only from a node that may replicate their
 * keys here; a root's remove is applied if its secret opens the binding. Owned by the node's event loop.
 */
final class PeerWrites {

    // Node's logger: these lines keep the name operators and log filters know them by.
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final Repair repair;
    private final Watchers watchers;

    PeerWrites(NodeContext ctx, Membership members, LocalReplica replica, Repair repair, Watchers watchers) {
        this.ctx = ctx;
        this.watchers = watchers;
        this.members = members;
        this.replica = replica;
        this.repair = repair;
    }

    /**
     * Stores a peer's copies (a page at most) off the loop, passes new ones on ({@link Repair#passOn}) and acknowledges
     * once they are durable; a storage fault is answered at once with its typed status: a failed copy, not a timeout.
     */
    void storeReplicas(Contact from, Envelope e, StoreReplicas m) {
        List<ReplicaRecord> allowed = fromReplicaSet(from, m.records());
        replica.offLoop(() -> replica.accept(allowed), (accepted, failure) -> {
            StoreException ex = LocalReplica.storeFault(failure);
            if (ex != null) {
                log.warn("{} cannot store {} copies from {}: {}", ctx.tag(), m.records().size(), from, ex.toString());
                reply(from, e, new ErrorReply(LocalReplica.statusOf(ex), "replica store failed: " + ex.getMessage()));
            } else {
                repair.passOn(from, accepted.fresh());
                watchers.stored(accepted.fresh());
                // A sync that never returns (a hung disk) is answered as an I/O fault after a bound: DurableWait.
                DurableWait.await(ctx, replica, false, () -> {
                    if (m.ackTo() != null && accepted.count() > 0 && allowed.size() == 1) {
                        // A put's copy: its gateway counts this replica's own word toward W (AttributedWrite).
                        ctx.outbox().ackToGateway(m.ackTo(), m.ackRequestId(),
                                PutAck.of(allowed.get(0)));
                    }
                    reply(from, e, new StoreAck(accepted.count()));
                },
                        () -> reply(from, e, new ErrorReply(Status.IO_ERROR, "replica store: the copies were not "
                                + "durable within " + DurableWait.boundMillis(ctx.config()) + " ms")));
            }
        });
    }

    /**
     * A root's remove at this replica, written off the loop; a storage fault is the answer's status. A root this node
     * does not see as a replica of the key is told UNAVAILABLE: its view and this one differ for now, which says
     * nothing of the secret (FORBIDDEN here made the client's remove a 403, "wrong secret", where the secret was right).
     */
    void removeReplica(Contact from, Envelope e, RemoveReplica r) {
        if (!members.mayReplicate(r.key(), from)) {
            reply(from, e, new RemoveReplicaReply(Status.UNAVAILABLE));
            return;
        }
        replica.offLoop(() -> replica.removal(r.key(), r.valueHash(), r.secret(), r.ttlSeconds()),
                (done, failure) -> reply(from, e, new RemoveReplicaReply(removed(ctx, watchers, r, done, failure))));
    }

    /**
     * What a replica's remove {@code r} came to here (the root's own, or one a root asked for): its watchers told of
     * the tombstone, and, when it holds it, the remove's gateway, which counts this replica's own word toward W
     * ({@link AttributedWrite}). Returns the replica's answer; a storage fault is its status.
     */
    static Status removed(NodeContext ctx, Watchers watchers, RemoveReplica r, TombstoneRule.Removal done,
                          RuntimeException failure) {
        if (failure == null && done.tombstone() != null) {
            watchers.stored(List.of(done.tombstone()));
        }
        Status status = failure == null ? done.status() : LocalReplica.statusOf(LocalReplica.storeFault(failure));
        if (status == Status.OK && r.ackTo() != null) {
            ctx.outbox().ackToGateway(r.ackTo(), r.ackRequestId(), new RemoveAck(r.key(), r.valueHash()));
        }
        return status;
    }

    /**
     * The copies (values and tombstones) {@code from} may hand this node: those of keys whose replica set, as this
     * node sees it, holds it or has it next ({@link Membership#mayReplicate}), and those this node asked it for
     * ({@link SolicitedCopies}).
     */
    private List<ReplicaRecord> fromReplicaSet(Contact from, List<ReplicaRecord> records) {
        List<ReplicaRecord> allowed = new ArrayList<>(records.size());
        SolicitedCopies solicited = repair.solicited();
        // A page holds a key's records together: its replica set is ranked once.
        Id key = null;
        boolean replicates = false;
        for (ReplicaRecord r : records) {
            if (!r.key().equals(key)) {
                key = r.key();
                replicates = members.mayReplicate(key, from);
            }
            if (replicates || solicited.asked(from, key, r.slot())) {
                allowed.add(r);
            }
        }
        if (allowed.size() < records.size()) {
            log.debug("{} refuses {} of {} copies from {}, which is no replica of their keys nor was asked for them",
                    ctx.tag(), records.size() - allowed.size(), records.size(), from);
        }
        return allowed;
    }

    /** A peer's put outside this node's limits is answered at once, to its origin, and goes no further. */
    boolean refusedPut(PutRequest p) {
        Optional<ErrorReply> refused = ClientRequestValidator.checkPeerPut(p, ctx.config(), ctx.clock().epochMillis());
        if (refused.isEmpty()) {
            return false;
        }
        ErrorReply why = refused.get();
        log.debug("{} refuses a routed put of {}: {}", ctx.tag(), p.key().shortHex(), why.detail());
        ctx.outbox().replyToOrigin(p, new PutReply(why.status(), 0, why.detail()));
        return true;
    }

    private void reply(Contact to, Envelope request, Message reply) {
        ctx.outbox().send(to.address(), request.requestId(), reply);
    }
}
