package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which keys this node and one peer should both hold, in this node's view: what a repair session ({@link RangeSync})
 * between the two compares. Both ends evaluate it, each in its own view, so equal views give equal digests.
 */
final class ReplicaPairs {

    private static final Id HALF_RING = new Id(Long.MIN_VALUE, 0, 0);

    private final NodeContext ctx;
    private final Membership members;

    ReplicaPairs(NodeContext ctx, Membership members) {
        this.ctx = ctx;
        this.members = members;
    }

    /**
     * Which keys this node and {@code peer} should both hold, as this node sees it: both are among the key's k
     * closest (with {@code handoff}, k + 1: the keys a leaving node hands over). Both ends of a session evaluate it,
     * each in its own view, so equal views give equal digests.
     */
    Predicate<Id> filter(Contact peer, boolean handoff) {
        Id self = ctx.self().id();
        Id other = peer.id();
        return key -> {
            List<Contact> set = handoff ? members.replicaSetAndNext(key) : members.replicaSet(key);
            boolean hasSelf = false;
            boolean hasPeer = false;
            for (Contact c : set) {
                hasSelf |= c.id().equals(self);
                hasPeer |= c.id().equals(other);
            }
            return hasSelf && hasPeer;
        };
    }

    /**
     * Whether {@code peer} may ask this node to compare or send copies: a member of its leaf set, where every replica
     * set of a key it holds lies. A stranger shares no key with it ({@link #filter} accepts none).
     */
    boolean isPartner(Contact peer) {
        return members.isLeafMember(peer);
    }

    /** Whether {@code peer} is one of {@code key}'s replicas, or the next beyond them, in this node's view. */
    boolean replicates(Id key, Contact peer) {
        return members.replicaSetAndNext(key).contains(peer);
    }

    /**
     * The arc holding every key {@link #filter} can accept: from the n-th node counter-clockwise of the two to
     * the n-th clockwise of them (n = k, or k + 1 for a hand-off), where the nodes in between are closer to any key
     * beyond. The whole ring when the leaf set is not full or does not reach that far.
     */
    KeyRange range(Contact peer, boolean handoff) {
        return arc(peer, handoff, false);
    }

    /**
     * As {@link #range}, but null when the two lie so far apart in the leaf set that no key has both among its n
     * closest (more than 2n positions: possible where k is small against the leaf set's half), where {@link #range}
     * wraps round most of the ring. What a range digest from {@code peer} may make this node read.
     */
    KeyRange sharedArc(Contact peer, boolean handoff) {
        return arc(peer, handoff, true);
    }

    private KeyRange arc(Contact peer, boolean handoff, boolean noneWhenApart) {
        int n = ctx.config().replicas() + (handoff ? 1 : 0);
        List<Contact> cw = members.clockwise();
        List<Contact> ccw = members.counterClockwise();
        int half = ctx.config().leafSetHalf();
        if (cw.size() < half || ccw.size() < half) {
            return KeyRange.whole();
        }
        List<Id> ring = new ArrayList<>();
        List<Boolean> usable = new ArrayList<>();
        for (int i = ccw.size() - 1; i >= 0; i--) {
            ring.add(ccw.get(i).id());
            usable.add(members.usable(ccw.get(i)));
        }
        ring.add(ctx.self().id());
        usable.add(true);
        cw.forEach(c -> {
            ring.add(c.id());
            usable.add(members.usable(c));
        });
        if (new HashSet<>(ring).size() != ring.size()
                || ring.get(ring.size() - 1).minus(ring.get(0)).compareTo(HALF_RING) >= 0) {
            return KeyRange.whole();
        }
        int s = ccw.size();
        int p = ring.indexOf(peer.id());
        if (p < 0) {
            return KeyRange.whole();
        }
        // n steps over usable nodes: a suspect is in no replica set, so the arc reaches one node further past it.
        int a = Math.max(s, p);
        int b = Math.min(s, p);
        for (int i = 0; i < n; i++) {
            do {
                a--;
            } while (a >= 0 && !usable.get(a));
            do {
                b++;
            } while (b < ring.size() && !usable.get(b));
        }
        if (a < 0 || b >= ring.size()) {
            return KeyRange.whole();
        }
        if (noneWhenApart && a > b) {
            return null;
        }
        return new KeyRange(ring.get(a), ring.get(b).plus(new Id(0, 0, 1)));
    }
}
