package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's side of a get: whether this node answers a get for a key, and the answer to a routed or an iterative
 * get, read from the local replica; a quorum get is served by a {@link QuorumRead}, and another replica's read for
 * one is answered here. Owned by the node's event loop.
 */
final class GetAnswers {

    private static final Logger log = LoggerFactory.getLogger(GetAnswers.class);

    /** Candidates a node names in answer to an iterative get, and an iterative gateway starts from. */
    static final int ITERATIVE_CANDIDATES = 4;
    /**
     * Replicas a node reads for a get while its view of the key is unsettled ({@link #settled}): itself and the two
     * next closest. With k = 4 and W = 2 (the defaults) that is k − W + 1: any put that W replicas of the current set
     * acknowledged is on one of them.
     */
    static final int UNSETTLED_READ_QUORUM = 3;

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final RecentViews recent;
    private final ViewReach reach;
    private final long settlingNanos;
    private final long storeFaultSettlingNanos;
    /** When each leaf-set member last answered again after a cut ({@link #answersResumed}). */
    private final Map<Id, Long> cutEndedAtNanos = new HashMap<>();

    GetAnswers(NodeContext ctx, Membership members, LocalReplica replica) {
        this.ctx = ctx;
        this.members = members;
        this.replica = replica;
        // Repair into a node does not wait for an anti-entropy round: its neighbours see the same change within an
        // exchange or a probe and start their sessions with it 200 ms later; settlingMillis leaves time for that.
        this.settlingNanos = NodeContext.nanos(ctx.config().settlingMillis());
        this.recent = new RecentViews(ctx, members, settlingNanos);
        this.reach = new ViewReach(ctx, members, settlingNanos);
        // A store that refused copies is not repaired by a view change: the roots that owed it a copy start a
        // session once it takes writes again, but a root may have died since, and the other holders reach it only
        // in their anti-entropy turn over the leaf set, one member per round. Two such turns.
        NodeConfig c = ctx.config();
        this.storeFaultSettlingNanos = Math.max(settlingNanos,
                NodeContext.nanos(2L * 2 * c.leafSetHalf() * c.antiEntropyIntervalMillis()));
    }

    /**
     * A get is answered by the first replica on the path, unless that replica holds nothing for the key and is not
     * the root: a replica that joined moments ago may not have been repaired yet, so the root is asked instead. A
     * replica whose leaf set does not reach past the key ({@link ViewReach#seesPastKey}) does not answer either.
     *
     * <p>Root here means that no usable node this node knows, in its routing table as well as its leaf set, is
     * closer to the key. The leaf set alone is not enough: when the nodes on one side of it die together, that side
     * holds only suspects, and then nothing, until leaf-set exchange refills it, while a live replica beyond the dead
     * ones may hold the key. Such a node routes the get on to the closer node instead.
     */
    boolean answersGet(Id key) {
        if (!reach.isSureReplica(key)) {
            return false;
        }
        // A store in a fault refused every copy since: only the root, which has nowhere closer to send the get, takes
        // it, and reads another replica too (serve). A replica only while a closer member is suspected is no replica
        // to a root that still counts the suspect: puts went there, not here; the get goes on to a closer replica.
        return (members.closerNeighbours(key, 1).isEmpty() && !reach.closerSuspect(key))
                || (replica.healthy() && replica.holdsAny(key)
                        && members.replicaSetWithSuspects(key).contains(ctx.self()));
    }

    /** What this node's view reaches around a key: the edge tests {@link #answersGet} applies. */
    ViewReach reach() {
        return reach;
    }

    /** This node's leaf set changed: a member joined or left, or was suspected or cleared. */
    void leafSetChanged() {
        recent.leafSetChanged();
    }

    /**
     * Leaf-set member {@code member} answers again after a cut (every request of this node's for a second or more was
     * lost, {@link Peers#CUT_OFF_NANOS}): the keys it replicates with this node may hold puts it acknowledged without
     * this node meanwhile. Under a one-way cut it kept speaking, so it never left this node's leaf set and no view
     * changed.
     */
    void answersResumed(Id member) {
        ctx.listener().cutEnded();
        recent.cutOffEnded(member);
        long now = ctx.now();
        cutEndedAtNanos.values().removeIf(at -> now - at >= storeFaultSettlingNanos);
        cutEndedAtNanos.put(member, now);
    }

    /** Every key's replicas may hold puts this node lacks: it started. */
    void allChanged() {
        recent.allChanged();
    }

    /**
     * This node's store refuses writes (a full disk): every key's replicas may hold puts it lacks until repair has
     * brought them, which may take two of its neighbours' anti-entropy turns over the leaf set after the store
     * recovers.
     */
    void storeFaulted() {
        recent.allChanged(storeFaultSettlingNanos);
    }

    /**
     * Whether this node may answer a get of {@code key} from its own store alone. A get is answered by one replica and
     * a put acknowledged by W, so a replica that missed a copy answers without it until repair brings it: rare in a
     * settled view, the rule just after a change. Unsettled (docs/node.md, "Settled and unsettled keys"): for
     * {@link NodeConfig#settlingMillis} after the key's replica set changed in this node's view ({@link RecentViews};
     * a suspicion alone is no change), while a replica of the key has stopped answering ({@link #replicaCutOff}),
     * after W lost neighbours spoke again together ({@link ViewReach#partitionMayHaveHealed}), while the expiry clock is in
     * doubt, after a start, and during and after a store fault. An unsettled node reads more replicas
     * ({@link #readQuorum}, {@link #pastReplicas}), merges as a quorum get does, and repairs what differed.
     */
    boolean settled(Id key) {
        if (!replica.healthy()) {
            storeFaulted();
            return false;
        }
        return !replica.clockInDoubt() && recent.settled(key) && !replicaCutOff(key) && !reach.partitionMayHaveHealed();
    }

    /** The nodes a read asks besides the current replicas ({@link RecentViews#extraReplicas}). */
    private QuorumRead.Past pastReplicas(Id key) {
        return recent.extraReplicas(key, reach.partitionMayHaveHealed());
    }

    /**
     * {@code past} with {@code key}'s suspected replicas added ({@link Membership#replicaSetWithSuspects}), so that a
     * read asks them (after the others) and R grows by their number. A suspect is in no replica set, yet holds what it
     * held, and a put is sent to it too. Drops may leave both of a put's holders suspected at once (seed 541 of issue
     * 34's long run: a faulted root's read of every replica of its view, neither holder among them, answered OK
     * without the put); so may a one-way cut's end, when the first member to answer again unsettles the key while
     * the others are suspected still (OneWayCutNodeTest under load: a read of itself and that member alone).
     */
    private QuorumRead.Past withSuspects(Id key, QuorumRead.Past past) {
        List<Contact> current = members.replicaSet(key);
        List<Contact> asked = new ArrayList<>(past.reachable());
        for (Contact c : members.replicaSetWithSuspects(key)) {
            if (!c.equals(ctx.self()) && !current.contains(c) && !asked.contains(c)) {
                asked.add(c);
            }
        }
        int added = asked.size() - past.reachable().size();
        return added == 0 ? past : new QuorumRead.Past(asked, past.count() + added);
    }

    /**
     * Whether a replica of {@code key} in this node's view, suspects included, has left this node's requests
     * unanswered for 5 s ({@link Peers#ANSWERS_STOPPED_NANOS}) and not answered since. Under a one-way cut it still
     * speaks, so it stays a member and no view changes, while it leaves this node out of the puts it is the root of.
     * {@link RecentViews#cutOffEnded} unsettles the key once its first answer comes; this covers the cut itself and
     * the time from its heal to that answer. After that answer, as long as after a store fault: the member's puts made
     * without this node are on the others, whose views never changed, so no session toward this node starts before
     * their anti-entropy turns, and the member itself may hold none (seed 1680 of issue 34's long run: a root with a
     * full disk, cut off from this node, put a value on the four others only).
     */
    private boolean replicaCutOff(Id key) {
        long now = ctx.now();
        for (Contact c : members.replicaSetWithSuspects(key)) {
            Long cutEndedAt = cutEndedAtNanos.get(c.id());
            if (!c.equals(ctx.self()) && (members.answersStopped(c.id())
                    || cutEndedAt != null && now - cutEndedAt < storeFaultSettlingNanos)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether this node serves {@code g}: as {@link #answersGet} says, except that a quorum get is served by any
     * replica of the key, holding records or not, since it reads the others anyway.
     */
    boolean answers(GetRequest g) {
        return g.quorum() ? reach.isSureReplica(g.key()) : answersGet(g.key());
    }

    /**
     * Answers a routed get straight to its gateway, adding this reply to the cost the get carried; a quorum get after
     * reading R replicas ({@link QuorumRead}); {@link Status#UNAVAILABLE} if it lost its neighbours.
     */
    void serve(GetRequest g) {
        askLostReplicas(g.key());
        if (lostNeighbours()) {
            ctx.outbox().replyToOrigin(g, new ErrorReply(Status.UNAVAILABLE, "fewer than the "
                    + ctx.config().writeQuorum() + " nodes a put needs are in view: this node lost its neighbours"));
            return;
        }
        if (g.quorum()) {
            QuorumRead.start(ctx, members, replica, g, pastReplicas(g.key()));
            return;
        }
        boolean healthy = replica.healthy();
        if (log.isDebugEnabled() && healthy && !replica.holdsAny(g.key())) {
            logEmptyAnswer(g);
        }
        if (!healthy || !settled(g.key())) {
            // A store that refuses writes (a full disk) missed the puts since: the answer merges its records with the
            // two next replicas' (PARTIAL if fewer answer). An unsettled view (settled) reads the two next replicas too
            // and answers OK with what answered; after a heal every current replica (readQuorum).
            ctx.listener().oneReplicaGetServed(true, !healthy);
            QuorumRead.Past past = withSuspects(g.key(), pastReplicas(g.key()));
            if (healthy) {
                QuorumRead.startWidened(ctx, members, replica, g, readQuorum(true), past);
            } else {
                QuorumRead.start(ctx, members, replica, g, readQuorum(false), past);
            }
            return;
        }
        ctx.listener().oneReplicaGetServed(false, false);
        GetReply page = replica.readPage(g.key(), g.maxValues(), g.placemark(), g.hops(), g.filter());
        GetReply reply = new GetReply(page.status(), page.values(), page.placemark(), page.hops(), "", g.cost(),
                g.wantHolders() ? members.replicaSet(g.key()) : List.of());
        if (!g.origin().id().equals(ctx.self().id())) {
            // The reply's size does not depend on the cost it carries (fixed-width fields).
            reply = reply.withCost(g.cost().plus(ctx.outbox().sizeOf(ctx.self(), reply)));
        }
        ctx.outbox().replyToOrigin(g, reply);
    }

    /**
     * Replicas a node that does not answer alone reads. After W neighbours declared dead spoke again together, every
     * current replica: R + W > k holds within one replica set, and across the partition the other side acknowledged
     * puts on its own, possibly on the one current replica a read of three leaves out. With its store in a fault,
     * every current replica too: its own records count for nothing, and the puts since the fault began are on W of
     * the replica set they were made in, which a suspicion since may have changed, so two others of this view may
     * hold none of them (seed 541 of the fault simulator's long run).
     */
    private int readQuorum(boolean healthy) {
        return !healthy || reach.partitionMayHaveHealed() ? ctx.config().replicas() : UNSETTLED_READ_QUORUM;
    }

    /**
     * Whether fewer than W nodes are in this node's view, suspects and itself included: every key's replica set with
     * suspects then holds fewer than W too (counted without working one out: every get asks). As a put is then
     * refused ({@link ReplicaCoordinator#put}), a get is not answered: an overlay that really has fewer nodes than W
     * runs with a smaller W, so this node lost its neighbours, and its store lacks what they acknowledged since.
     */
    private boolean lostNeighbours() {
        return members.leafMembers().size() + 1 < ctx.config().writeQuorum();
    }

    /**
     * Pings the neighbours lost lately that would be replicas of {@code key} ({@link LostContacts#ask}), without
     * waiting: if a partition healed, the one that answers is back for the gets after this one. Not waiting is on
     * purpose (docs/history.md, "Gets ping the neighbours lost lately").
     */
    private void askLostReplicas(Id key) {
        // Every get comes here: in a ring that lost nobody, the key's replica set is not worked out for nothing.
        if (members.lost().size() == 0) {
            return;
        }
        for (Contact c : members.lost().amongReplicas(key, members.replicaSet(key), ctx.config().replicas())) {
            members.lost().ask(c.id());
        }
    }

    /**
     * DEBUG: this node answers a get from a store that holds nothing for its key (an "OK, no values" answer), and why
     * it takes itself for the one to answer: whether any usable node it knows is closer, its replica set, its leaf
     * set. Costs a store read per get, so only with DEBUG on (the repair-at-volume test's diagnostics).
     */
    private void logEmptyAnswer(GetRequest g) {
        List<Contact> closer = members.closerNeighbours(g.key(), 1);
        List<Contact> suspects = members.leafMembers().stream().filter(c -> !members.usable(c)).toList();
        log.debug("{} answers a get of {} holding nothing, after {} hops: {}; replica set {}; leaf set ccw {} cw {}; "
                        + "suspects among them {}", ctx.tag(), g.key().toHex(), g.hops(),
                closer.isEmpty() ? "root (no closer usable node known)" : "not root, closer: " + closer.get(0),
                members.replicaSet(g.key()), members.counterClockwise(), members.clockwise(), suspects);
    }

    /**
     * Another replica's read for a quorum get it serves: this node's records of the key, if {@code from} may read
     * them ({@link Membership#mayRead}: a member of its leaf set, or a replica); else FORBIDDEN. A page holding a
     * tombstone that {@code secrets} would not let the asker read (it carries the remove's secret: a leaf-set member
     * that is no replica of the key nor the next, in this node's view) is refused as UNAVAILABLE, the answer of views
     * that differ for now; the page without it would let the asker return, and repair, the value it removed.
     */
    Message answerReplicaRead(Contact from, ReplicaRead r, SecretGuard secrets) {
        if (!members.mayRead(r.key(), from)) {
            return new ErrorReply(Status.FORBIDDEN, "not a replica of " + r.key().shortHex() + " in this node's view");
        }
        RecordPage page;
        try {
            page = replica.readRecords(r.key(), r.placemark(), r.maxRecords(), r.filter());
        } catch (StoreException e) {
            return new ErrorReply(LocalReplica.statusOf(e), "replica store failed: " + e.getMessage());
        }
        List<ReplicaRecord> wire = new ArrayList<>(page.records().size());
        for (StoredRecord s : page.records()) {
            if (!secrets.mayRead(s, from)) {
                ctx.listener().repairTombstonesWithheld(1);
                log.debug("{} refuses {} a replica read of {}, which holds a remove's secret: no replica of the key "
                        + "in this node's view", ctx.tag(), from, r.key().shortHex());
                return new ErrorReply(Status.UNAVAILABLE, "not a replica of " + r.key().shortHex()
                        + " in this node's view, which holds a remove's secret for it");
            }
            wire.add(replica.toWire(s));
        }
        return new ReplicaReadReply(wire, page.more());
    }

    /**
     * A node asked by an iterative gateway: the values if it would answer a routed get (and has not lost its
     * neighbours, {@link #lostNeighbours}), else closer nodes. Like a routed get, the root answers even when it is no
     * sure replica: in a small ring with a gap wider than half of it, neither node beside the gap sees past its keys.
     */
    IterativeGetReply answerIterative(IterativeGet q) {
        List<Contact> closer = members.closerNeighbours(q.key(), ITERATIVE_CANDIDATES);
        boolean root = closer.isEmpty() && !reach.closerSuspect(q.key());
        if ((root || answersGet(q.key())) && !lostNeighbours()) {
            GetReply page = replica.readPage(q.key(), q.maxValues(), q.placemark(), 0, q.filter());
            return new IterativeGetReply(Status.OK, true, page.values(), page.placemark(),
                    q.wantHolders() ? members.replicaSet(q.key()) : List.of());
        }
        return new IterativeGetReply(Status.OK, false, List.of(), Bytes.EMPTY, closer);
    }
}
