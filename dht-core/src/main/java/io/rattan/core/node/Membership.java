package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who this node knows and how they are: the leaf set, the routing table and each peer's health, kept up by
 * leaf-set exchange and by failure detection ({@link FailureDetector}). Only contacts heard from directly enter the
 * tables ({@link SecondHandProbes}); neighbours declared dead are pinged again for a while ({@link LostContacts}), so a
 * healed partition's sides meet. Owned by the node's event loop.
 */
final class Membership {

    private static final Logger log = LoggerFactory.getLogger(Membership.class);

    /**
     * The least wait before a leaf-set member's probe is sent again (3 times, at doubling intervals from this or its
     * backed-off RTO): docs/history.md, "A suspect's probe is sent again".
     */
    static final long PROBE_RESEND_MIN_NANOS = 500_000_000L;

    private final NodeContext ctx;
    private final LeafSet leafSet;
    private final RoutingTable table;
    private final Peers peers;
    private final SecondHandProbes probes;
    private final LostContacts lost;
    private final LeafExchanges exchanges;
    private final FailureDetector detector;
    private final Runnable leafSetChanged;
    private final Consumer<Id> answersResumed;
    // k: the node's own, or a namespace's in a view of this membership (withReplicas) that shares everything else.
    private final int replicas;
    /** What {@link Peers#forgetIdle} must keep: the peers routing relies on, measured by maintenance. */
    private final Predicate<Id> isNeighbour = this::isNeighbour;

    /**
     * {@code leafSetChanged} runs when a member joins or leaves the leaf set, or a peer is suspected or cleared;
     * {@code answersResumed} when a member answers again after a cut ({@link Peers#sample(Id, long, long)}).
     */
    Membership(NodeContext ctx, Runnable leafSetChanged, Consumer<Id> answersResumed) {
        this.ctx = ctx;
        NodeConfig config = ctx.config();
        String selfHost = ctx.self().address().host();
        this.leafSet = new LeafSet(ctx.self(), config.leafSetHalf(), config.idsPerIp());
        long rtoMax = nanos(config.rtoMaxMillis());
        this.peers = new Peers(nanos(config.rtoInitialMillis()), nanos(config.rtoMinMillis()), rtoMax,
                20 * nanos(config.leafExchangeIntervalMillis()), this::suspicionChanged);
        this.table = new RoutingTable(ctx.self().id(), config.candidatesPerSlot(), peers::srttNanos,
                config.idsPerIp(), selfHost);
        this.probes = new SecondHandProbes(ctx, leafSet, table, peers, this::add);
        this.lost = new LostContacts(ctx, peers);
        this.detector = new FailureDetector(ctx, leafSet, table, peers, lost, this::forget);
        this.exchanges = new LeafExchanges(ctx, leafSet, peers, this::learn, this::peerTimedOut);
        this.leafSetChanged = leafSetChanged;
        this.answersResumed = answersResumed;
        this.replicas = config.replicas();
    }

    private Membership(Membership base, int replicas) {
        this.ctx = base.ctx;
        this.leafSet = base.leafSet;
        this.peers = base.peers;
        this.table = base.table;
        this.probes = base.probes;
        this.lost = base.lost;
        this.exchanges = base.exchanges;
        this.detector = base.detector;
        this.leafSetChanged = base.leafSetChanged;
        this.answersResumed = base.answersResumed;
        this.replicas = replicas;
    }

    /** This membership as a namespace with {@code k} replicas sees it: the same nodes, replica sets of k. */
    Membership withReplicas(int k) {
        return k == replicas ? this : new Membership(this, k);
    }

    /** A peer became a suspect or stopped being one: it leaves or rejoins the usable members. */
    private void suspicionChanged(Id id) {
        log.debug("{} {} {}", ctx.tag(), peers.isSuspect(id) ? "suspects" : "no longer suspects", id.shortHex());
        leafSetChanged.run();
    }

    // ---------------------------------------------------------------- what is known

    boolean usable(Contact c) {
        return !peers.isSuspect(c.id());
    }

    /** In the routing table or the leaf set. */
    boolean isNeighbour(Id id) {
        return table.contains(id) || leafSet.contains(id);
    }

    /** Whether this node keeps any state for {@code id} (an RTT estimate, a suspicion). */
    boolean knowsPeer(Id id) {
        return peers.knows(id);
    }

    /** Whether {@code id} has left this node's requests unanswered for 5 s, to now ({@link Peers#answersStopped}). */
    boolean answersStopped(Id id) {
        return peers.answersStopped(id, ctx.now());
    }

    boolean isRecentlyDead(Id id) {
        return peers.isRecentlyDead(id, ctx.now());
    }

    /** Measured delays, for the next-hop policies and the one-hop router. */
    RttView rtts() {
        return peers;
    }

    long rtoNanos(Id id) {
        return peers.rtoNanos(id);
    }

    long srttNanos(Id id) {
        return peers.srttNanos(id);
    }

    List<Contact> leafMembers() {
        return leafSet.members();
    }

    /** The clockwise side of the leaf set, nearest first (a copy). */
    List<Contact> clockwise() {
        return leafSet.clockwise();
    }

    /** The counter-clockwise side of the leaf set, nearest first (a copy). */
    List<Contact> counterClockwise() {
        return leafSet.counterClockwise();
    }

    boolean leafSetCovers(Id key) {
        return leafSet.covers(key);
    }

    boolean leafSetSeesPast(Id key, BooleanSupplier knowsOthers) {
        return leafSet.seesPast(key, knowsOthers);
    }

    boolean leafSetKnowsAllCloser(Id key, Id ref, BooleanSupplier knowsOthers) {
        return leafSet.knowsAllCloser(key, ref, knowsOthers);
    }

    /** The leaf-set member (or this node) closest to {@code key} among those {@code ok} accepts. */
    Contact closestLeaf(Id key, Predicate<Contact> ok) {
        return leafSet.closest(key, 1, ok).get(0);
    }

    /** The best contact of the routing-table slot {@code key} routes through, or null. */
    Contact tableCandidate(Id key, Predicate<Contact> ok) {
        return table.best(table.slotFor(key), ok);
    }

    /** Every routing-table entry, row by row (a copy). */
    List<Contact> tableEntries() {
        return table.all();
    }

    int tableSize() {
        return table.size();
    }

    Contact tableEntry(int index) {
        return table.get(index);
    }

    List<Integer> tableRowFill() {
        return table.rowFill();
    }

    /** The k replicas of {@code key} as this node sees them: the usable leaf-set members (or itself) closest to it. */
    List<Contact> replicaSet(Id key) {
        return leafSet.closest(key, replicas, this::usable);
    }

    /** The k closest to {@code key} of this node and its leaf set, suspects included (a suspect's copy counts). */
    List<Contact> replicaSetWithSuspects(Id key) {
        return leafSet.closest(key, replicas, c -> true);
    }

    /** The replicas of {@code key} and the next node beyond them: where a leaving replica's copies must go. */
    List<Contact> replicaSetAndNext(Id key) {
        return leafSet.closest(key, replicas + 1, this::usable);
    }

    /**
     * Whether {@code sender} may hand this node copies or removals of {@code key} unasked: a replica of the key or the
     * next beyond (a leaving replica hands on from there), in this node's view; not another member (copies it offers
     * are asked for: {@link SolicitedCopies}), nor a stranger, nor a member's id at another address.
     */
    boolean mayReplicate(Id key, Contact sender) {
        return replicaSetAndNext(key).contains(sender);
    }

    /** Whether {@code sender} may read this node's records of {@code key}: a member (views differ) or a replica. */
    boolean mayRead(Id key, Contact sender) {
        return isLeafMember(sender) || mayReplicate(key, sender);
    }

    /** A member of this node's leaf set, at the address it holds for it. */
    boolean isLeafMember(Contact c) {
        return leafSet.holds(c);
    }

    /** A node said it leaves: forgets it, unless its id is bound to a contact at another address (then ignored). */
    void left(Contact c) {
        Contact bound = boundTo(c.id());
        if (bound != null && !bound.address().equals(c.address())) {
            log.debug("{} ignores a leave for {} from {}", ctx.tag(), bound, c.address());
            return;
        }
        forget(c);
    }

    /** True when this node is one of the k replicas of {@code key} in its own view. */
    boolean isReplica(Id key) {
        return leafSet.covers(key) && replicaSet(key).contains(ctx.self());
    }

    /** True when this node is the usable node closest to {@code key} it knows of. */
    boolean isRoot(Id key) {
        return leafSet.closest(key, 1, this::usable).get(0).equals(ctx.self());
    }

    /** Usable neighbours that pass {@code ok}: leaf-set members first, then table entries not in the leaf set. */
    List<Contact> usableNeighbours(Predicate<Contact> ok) {
        return neighbours(c -> usable(c) && ok.test(c));
    }

    /** Neighbours, suspects included, that pass {@code ok}: leaf-set members first, then the table's others. */
    List<Contact> neighbours(Predicate<Contact> ok) {
        List<Contact> found = new ArrayList<>(leafSet.members());
        found.removeIf(ok.negate());
        table.forEach(c -> {
            if (!leafSet.contains(c.id()) && ok.test(c)) {
                found.add(c);
            }
        });
        return found;
    }

    /** Usable neighbours strictly closer to {@code key} than this node, closest first, at most {@code max}. */
    List<Contact> closerNeighbours(Id key, int max) {
        Id self = ctx.self().id();
        List<Contact> closer = usableNeighbours(c -> c.id().isCloserTo(key, self));
        closer.sort(Comparator.comparing(c -> c.id().distanceTo(key)));
        return closer.size() > max ? List.copyOf(closer.subList(0, max)) : closer;
    }

    /**
     * Whether this node has heard directly from its nearest neighbour on each side (true with an empty leaf set: a
     * node alone in its overlay). They are in every replica set it is part of, and second-hand contacts may be stale.
     */
    boolean heardFromNearestNeighbours() {
        List<Contact> cw = leafSet.clockwise();
        List<Contact> ccw = leafSet.counterClockwise();
        return (cw.isEmpty() || peers.hasHeardFrom(cw.get(0).id()))
                && (ccw.isEmpty() || peers.hasHeardFrom(ccw.get(0).id()));
    }

    /** The leaf set without duplicates, counter-clockwise side first. */
    List<Contact> leafSetForStatus() {
        return leafSet.withoutDuplicates();
    }

    // ---------------------------------------------------------------- learning and forgetting

    /**
     * A node sent us a message: it is alive and is a neighbour candidate. A message from another address than the one
     * its id is bound to (a restarted node listening on a new port) says nothing about the bound contact, so it does
     * not count as hearing from that id: it would clear the old contact's suspicion and outweigh its lost probe
     * ({@link Peers#probeLost}), and while the new one kept talking the dead old one was never declared dead, so the
     * new one could not get in ({@link #add}) and was repaired by nobody who held it.
     */
    void heard(Contact c) {
        if (c.id().equals(ctx.self().id()) || keptAgainst(c)) {
            return;
        }
        peers.heardFrom(c.id(), ctx.now());
        lost.heard(c.id());
        add(c);
    }

    /** A contact another node told us about: probed before it may enter ({@link SecondHandProbes#learn}). */
    void learn(Contact c) {
        probes.learn(c);
    }

    /** Second-hand contacts: their probes, and the contacts held while joining. */
    SecondHandProbes probes() {
        return probes;
    }

    /**
     * Offers {@code c}, a contact this node heard from directly (never one it was told of), to the routing table and
     * the leaf set, unless its id is bound to a contact at another address:
     * a claim from another address does not take over an id while the node it names may be alive there. The old
     * contact is probed instead; once it fails its probe it is forgotten, and the next claim gets in.
     */
    void add(Contact c) {
        if (keptAgainst(c)) {
            return;
        }
        table.add(c);
        if (leafSet.add(c)) {
            leafSetChanged.run();
        }
    }

    /** Whether {@code c}'s id is bound to a contact at another address here; if so, that contact is probed. */
    private boolean keptAgainst(Contact c) {
        Contact bound = boundTo(c.id());
        if (bound == null || bound.address().equals(c.address())) {
            return false;
        }
        log.debug("{} keeps {} against a claim from {}; probing it", ctx.tag(), bound, c.address());
        peerTimedOut(bound);
        return true;
    }

    /** {@code peer} answered a request of this node's, {@code rttNanos} after it was sent. */
    void sampleRtt(Id peer, long rttNanos) {
        if (peers.sample(peer, rttNanos, ctx.now() - rttNanos) && leafSet.contains(peer)) {
            answersResumed.accept(peer);
        }
    }

    /** Drops what is known of a peer that is no neighbour, without marking it dead. */
    void forgetPeer(Id id) {
        peers.forget(id);
    }

    /** A request to {@code c} timed out: suspect it and probe it; a failed probe declares it dead. */
    void peerTimedOut(Contact c) {
        detector.peerTimedOut(c);
    }

    /** A connection to {@code a} was refused ({@link FailureDetector#refused}). */
    void refused(Address a) {
        detector.refused(a);
    }

    private Contact boundTo(Id id) {
        Contact c = leafSet.find(id);
        return c != null ? c : table.find(id);
    }

    /** Drops a node that died or left from every table, repairs around it and refills the leaf set. */
    void forget(Contact c) {
        peers.declareDead(c.id(), ctx.now());
        table.remove(c.id());
        if (leafSet.remove(c.id())) {
            leafSetChanged.run();
            exchanges.refill();
        }
    }

    // ---------------------------------------------------------------- leaf-set exchange

    /** One maintenance period's share: forget stale peers, exchange leaf sets with the next in turn, ping lost ones. */
    void exchangeRound() {
        peers.expireDeadMarks(ctx.now());
        peers.forgetIdle(ctx.now(), isNeighbour);
        exchanges.round();
        lost.probeRound();
    }

    void exchangeWith(Contact c) {
        exchanges.exchangeWith(c);
    }

    /** A neighbour's exchange: learn its members, answer with ours. */
    LeafExchangeReply answerExchange(LeafExchange m) {
        return exchanges.answer(m);
    }

    /** Neighbours declared dead that are pinged again for a while. */
    LostContacts lost() {
        return lost;
    }
}
