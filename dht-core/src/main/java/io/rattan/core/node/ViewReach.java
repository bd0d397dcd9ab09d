package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * What this node's view reaches around a key, which decides whether it may answer a get for it alone (whether it is a
 * replica that sees every node closer to the key, whether a closer member is suspected, whether a partition may just
 * have healed) and whether it can place a peer among the key's nearest ({@link SecretGuard}). Reads {@link Membership}
 * and this node's own contact only. Owned by the node's event loop.
 */
final class ViewReach {

    private final NodeContext ctx;
    private final Membership members;
    private final long settlingNanos;

    ViewReach(NodeContext ctx, Membership members, long settlingNanos) {
        this.ctx = ctx;
        this.members = members;
        this.settlingNanos = settlingNanos;
    }

    /**
     * Whether a leaf-set member closer to {@code key} than this node is suspected (not declared dead). A busy node is
     * suspected for a moment when a request to it outlasts its RTO; if it holds the key, this node is no root of it.
     * Such a get goes to the suspect instead (the router tries a closer suspect once, and fails the get rather than
     * answer for it).
     */
    boolean closerSuspect(Id key) {
        Id self = ctx.self().id();
        for (Contact c : members.leafMembers()) {
            if (!members.usable(c) && c.id().isCloserTo(key, self)) {
                return true;
            }
        }
        return false;
    }

    /** One of the key's k replicas in this node's view, and a view that holds every node closer to the key. */
    boolean isSureReplica(Id key) {
        return members.isReplica(key) && seesPastKey(key);
    }

    /**
     * Whether this node knows every node closer to {@code key} than itself: the last member of its leaf set on the
     * key's side lies at least as far from the key as this node does (or the leaf set holds the whole overlay). A
     * node near the edge of its leaf set counts itself among the k closest while a node beyond that edge, which it
     * cannot see, is closer: the root stored the value there and not here. Such a node routes the get on to a closer
     * node instead: one hop more, only near the edge.
     *
     * <p>A side that is not full does not by itself mean the overlay is small: right after a member is declared dead
     * its side is one short until an exchange refills it, and its edge is nearer than before. Only a leaf set whose
     * sides overlap both ways holds the whole overlay ({@link LeafSet#seesPast}; docs/history.md, "A short side is not
     * a small overlay").
     */
    boolean seesPastKey(Id key) {
        // In the leaf set, which walks its sides in place: a get asks this, and copying both sides cost two lists each.
        return members.leafSetSeesPast(key, this::knowsOutsideLeafSet) && !knowsCloserOutsideLeafSet(key, ctx.self());
    }

    /**
     * Whether this node knows every node closer to {@code key} than {@code peer}, so that its ranking of the peer
     * among the key's nearest is no guess: a replica near the edge of its leaf set takes a far peer for the key's
     * next node while nearer ones lie unseen beyond that edge ({@link #seesPastKey} asks the same for itself).
     */
    boolean knowsAllCloser(Id key, Contact peer) {
        return members.leafSetKnowsAllCloser(key, peer.id(), this::knowsOutsideLeafSet)
                && !knowsCloserOutsideLeafSet(key, peer);
    }

    /**
     * Whether this node knows of nodes outside its leaf set, so that sides overlapping both ways are not the whole
     * overlay ({@link LeafSet#seesPast}): a usable routing-table entry that is no member, or, after W lost neighbours
     * spoke again together ({@link #partitionMayHaveHealed}), a lost neighbour that has not yet: a node back from
     * isolation refills its leaf set from the first few that answer, and those alone look like a small overlay.
     */
    private boolean knowsOutsideLeafSet() {
        if (members.lost().size() > 0 && partitionMayHaveHealed()) {
            return true;
        }
        List<Contact> leaf = members.leafMembers();
        return !members.usableNeighbours(c -> !leaf.contains(c)).isEmpty();
    }

    /**
     * Whether a usable routing-table entry that is not in the leaf set is closer to {@code key} than {@code than}: the
     * leaf set then lacks a node it should hold, whatever its sides say. A side refilled after deaths may hold nodes
     * from the far end of the ring, and look like a whole small overlay, while the table knows nearer ones.
     */
    private boolean knowsCloserOutsideLeafSet(Id key, Contact than) {
        Id ref = than.id();
        List<Contact> leaf = members.leafMembers();
        return !members.usableNeighbours(c -> c.id().isCloserTo(key, ref) && !leaf.contains(c)).isEmpty();
    }

    /**
     * Whether W neighbours this node had declared dead (or more) spoke again together within the settling window
     * ({@link LostContacts#returnedWithin}): a partition may have healed whose other side was large enough to
     * acknowledge puts without this node. One alone is as often a slow node declared dead and heard again, and
     * counting it would unsettle every key around slow nodes.
     */
    boolean partitionMayHaveHealed() {
        return members.lost().returnedWithin(settlingNanos, ctx.config().writeQuorum());
    }
}
