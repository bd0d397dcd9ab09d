package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether this node's replica set of a key changed within the last settling window: the views (leaf-set members,
 * suspects included) that were in force during the window, each of which gives every key a replica set, and a window in
 * which every key counts as changed (the node started, or its store was in a fault). A replica whose replica set of a
 * key changed may lack puts the set's other members hold ({@link GetAnswers#settled}). Owned by the node's event loop.
 */
final class RecentViews {

    /** Past views kept at most; beyond, every key counts as changed for the window (views flapping that fast). */
    static final int VIEWS_MAX = 32;

    /** A view that was in force until {@code endedAtNanos}. */
    private record Past(long endedAtNanos, List<Contact> members) {
    }

    private final NodeContext ctx;
    private final Membership members;
    private final long windowNanos;
    private final ArrayDeque<Past> past = new ArrayDeque<>();
    /** The leaf-set members since the last change, suspects included; null before the first. */
    private List<Contact> current;
    /** Until when every key counts as changed (nanos); meaningful once {@code allChanged} is set. */
    private boolean allChanged;
    private long allChangedUntilNanos;
    /** When a member's cut last ended ({@link #cutOffEnded}); meaningful once {@code cutEnded} is set. */
    private boolean cutEnded;
    private long cutEndedAtNanos;

    RecentViews(NodeContext ctx, Membership members, long windowNanos) {
        this.ctx = ctx;
        this.members = members;
        this.windowNanos = windowNanos;
    }

    /** The leaf set changed: if a member joined or left, the view before it is past now. */
    void leafSetChanged() {
        long now = ctx.now();
        List<Contact> next = List.copyOf(members.leafMembers());
        if (current != null && Set.copyOf(current).equals(Set.copyOf(next))) {
            // A suspicion raised or cleared: no member came or went. A suspect holds what it held, and slow nodes are
            // suspected and cleared all the time (the slow-node experiments), so counting these would keep views
            // unsettled for good and every get reading three replicas.
            return;
        }
        if (current != null) {
            past.addLast(new Past(now, current));
        }
        current = next;
        pruneAndBound(now);
    }

    /**
     * Member {@code id} was cut off from this node until now, without leaving the leaf set: the keys whose replica set
     * holds it count as changed for the window, as if it had left and come back (a past view without it), and so does
     * every other key, as a member that could not hear this node may have counted it (and its side) suspect and
     * acknowledged puts of this node's keys on itself ({@link #sidesRejoined}).
     */
    void cutOffEnded(Id id) {
        if (current == null) {
            return;
        }
        List<Contact> without = new ArrayList<>(current);
        if (!without.removeIf(c -> c.id().equals(id))) {
            return;
        }
        long now = ctx.now();
        past.addLast(new Past(now, without));
        cutEnded = true;
        cutEndedAtNanos = now;
        pruneAndBound(now);
    }

    /**
     * Whether a member's cut ended within the window: under a one-way cut its side never left this node's leaf set,
     * yet, hearing nothing back, took this side for dead and acknowledged puts of the keys this node replicates on its
     * own nodes, which no current replica holds until the stray check moves them (seed 1844 of issue 34's long run).
     */
    boolean sidesRejoined() {
        return cutEnded && ctx.now() - cutEndedAtNanos < windowNanos;
    }

    /** Every key's replicas may hold what this node lacks: it started, or its store refused copies. */
    void allChanged() {
        allChanged(windowNanos);
    }

    /** As {@link #allChanged()}, for {@code forNanos} from now (or longer, if already so). */
    void allChanged(long forNanos) {
        long until = ctx.now() + forNanos;
        allChangedUntilNanos = allChanged ? Math.max(allChangedUntilNanos, until) : until;
        allChanged = true;
    }

    /** Whether {@code key}'s replica set in this node's view has been the same for the whole window. */
    boolean settled(Id key) {
        long now = ctx.now();
        prune(now);
        if (allChanged && now < allChangedUntilNanos || sidesRejoined()) {
            return false;
        }
        if (past.isEmpty()) {
            return true;
        }
        Set<Id> nowSet = ids(closest(current, key));
        for (Past p : past) {
            if (!ids(closest(p.members(), key)).equals(nowSet)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The nodes that were among {@code key}'s k closest in a view in force during the window and are not in the
     * current view's k closest, this node aside: a put acknowledged in such a view may be on one of them and on a
     * single replica of the current view, which a read of R current replicas may not reach.
     */
    Set<Id> pastReplicas(Id key) {
        prune(ctx.now());
        if (past.isEmpty()) {
            return Set.of();
        }
        Set<Id> now = ids(closest(current, key));
        Set<Id> out = new HashSet<>();
        for (Past p : past) {
            for (Contact c : closest(p.members(), key)) {
                if (!now.contains(c.id()) && !c.id().equals(ctx.self().id())) {
                    out.add(c.id());
                }
            }
        }
        return out;
    }

    /**
     * Of the members that arrived in this node's leaf set within the window (joined it or came back to it: a view of
     * the window lacked them), the k closest to {@code key} that are usable and not among its replicas now. A member
     * that came back from across a partition was, on its side, a replica of keys this node replicates, and may hold
     * puts its side acknowledged there; unless it is a replica now, no read of the current replicas asks it.
     */
    List<Contact> arrivalsNear(Id key) {
        prune(ctx.now());
        if (past.isEmpty()) {
            return List.of();
        }
        List<Contact> replicas = members.replicaSet(key);
        List<Contact> arrived = new ArrayList<>();
        for (Contact c : current) {
            if (members.usable(c) && !replicas.contains(c) && lackedByAPastView(c.id())) {
                arrived.add(c);
            }
        }
        return nearest(arrived, key);
    }

    private boolean lackedByAPastView(Id id) {
        for (Past p : past) {
            if (p.members().stream().noneMatch(m -> m.id().equals(id))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The nodes that were replicas of {@code key} in a view of the settling window and are not in the current one
     * ({@link #pastReplicas}): a read of more replicas ({@link GetAnswers#settled}) asks them as well, those it can
     * (usable leaf-set members), and reads one more current replica for each of the others. With R + W > k a read of R
     * current replicas meets every put that W of them acknowledged, but not one acknowledged by the set before a
     * change, which may have a single copy in the current set.
     *
     * <p>If {@code arrivalsToo} (W neighbours declared dead spoke again together, {@link GetAnswers#settled}), or a
     * member's cut ended within the window ({@link #sidesRejoined}), the k
     * members closest to the key that arrived in the leaf set within the window and are not its replicas now
     * ({@link #arrivalsNear}) are read too. Across a partition each side acknowledged puts on its own k closest; once
     * it heals, the other side's nodes come back as members, and those that are not among the key's replicas now hold
     * puts no current replica has until repair or the stray check brings them.
     */
    QuorumRead.Past extraReplicas(Id key, boolean arrivalsToo) {
        Set<Id> ids = pastReplicas(key);
        if (arrivalsToo || sidesRejoined()) {
            ids = new HashSet<>(ids);
            for (Contact c : arrivalsNear(key)) {
                ids.add(c.id());
            }
        }
        if (ids.isEmpty()) {
            return QuorumRead.Past.NONE;
        }
        List<Contact> reachable = new ArrayList<>();
        for (Contact c : members.leafMembers()) {
            if (ids.contains(c.id()) && members.usable(c)) {
                reachable.add(c);
            }
        }
        return new QuorumRead.Past(reachable, ids.size());
    }

    /** Prunes the views past the window; beyond {@link #VIEWS_MAX} of them, every key counts as changed instead. */
    private void pruneAndBound(long now) {
        prune(now);
        if (past.size() > VIEWS_MAX) {
            past.clear();
            allChanged();
        }
    }

    private void prune(long now) {
        while (!past.isEmpty() && now - past.peekFirst().endedAtNanos() >= windowNanos) {
            past.removeFirst();
        }
    }

    /** The k closest to {@code key} among {@code view} and this node, as {@link LeafSet#closest} chooses them. */
    private List<Contact> closest(List<Contact> view, Id key) {
        List<Contact> candidates = new ArrayList<>(view);
        candidates.add(ctx.self());
        return nearest(candidates, key);
    }

    /** The k closest to {@code key} of {@code contacts}, closest first. */
    private List<Contact> nearest(List<Contact> contacts, Id key) {
        List<Contact> candidates = new ArrayList<>(contacts);
        candidates.sort((a, b) -> a.id().equals(b.id()) ? 0 : a.id().isCloserTo(key, b.id()) ? -1 : 1);
        int k = ctx.config().replicas();
        return candidates.size() > k ? candidates.subList(0, k) : candidates;
    }

    private static Set<Id> ids(List<Contact> contacts) {
        Set<Id> out = new HashSet<>();
        for (Contact c : contacts) {
            out.add(c.id());
        }
        return out;
    }
}
