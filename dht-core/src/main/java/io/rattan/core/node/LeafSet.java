package io.rattan.core.node;

import io.rattan.core.id.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * The L nodes numerically nearest on each side of this node. The clockwise side holds the nodes with the smallest
 * {@code (c − self)}, the counter-clockwise side those with the smallest {@code (self − c)}; in an overlay of at
 * most 2L+1 nodes a node may sit on both sides. Not thread-safe: owned by the node's event loop.
 */
final class LeafSet {

    private final Contact self;
    private final int half;
    private final List<Contact> cw = new ArrayList<>();
    private final List<Contact> ccw = new ArrayList<>();
    private final Comparator<Contact> byCw;
    private final Comparator<Contact> byCcw;
    /**
     * {@link #members()}, built once per change of the set: a node lists its members in every leaf-set exchange, in
     * every pong's suggestion and on every routing decision, and the set changes far less often.
     */
    private List<Contact> members;

    LeafSet(Contact self, int half) {
        this.self = self;
        this.half = half;
        Id s = self.id();
        this.byCw = (a, b) -> s.compareClockwise(a.id(), b.id());
        // (s − a) < (s − b) exactly when (a − s) > (b − s), for a and b other than s, which no side ever holds.
        this.byCcw = (a, b) -> s.compareClockwise(b.id(), a.id());
    }

    /** Adds {@code c} where it belongs; returns true when the set changed. */
    boolean add(Contact c) {
        if (c.id().equals(self.id())) {
            return false;
        }
        boolean changed = insert(cw, c, byCw);
        changed |= insert(ccw, c, byCcw);
        if (changed) {
            members = null;
        }
        return changed;
    }

    /** Removes the node with this id; returns true when it was a member. */
    boolean remove(Id id) {
        boolean a = cw.removeIf(c -> c.id().equals(id));
        boolean b = ccw.removeIf(c -> c.id().equals(id));
        if (a || b) {
            members = null;
        }
        return a || b;
    }

    private boolean insert(List<Contact> side, Contact c, Comparator<Contact> order) {
        for (int i = 0; i < side.size(); i++) {
            Contact existing = side.get(i);
            if (existing.id().equals(c.id())) {
                // A node that came back elsewhere (or with another gateway port) replaces its old contact.
                if (!existing.equals(c)) {
                    side.set(i, c);
                    return true;
                }
                return false;
            }
        }
        // Most contacts offered lie beyond a full side: one comparison with its farthest member settles it.
        if (side.size() >= half && order.compare(side.get(side.size() - 1), c) < 0) {
            return false;
        }
        int pos = 0;
        while (pos < side.size() && order.compare(side.get(pos), c) < 0) {
            pos++;
        }
        if (pos >= half) {
            return false;
        }
        side.add(pos, c);
        if (side.size() > half) {
            side.remove(side.size() - 1);
        }
        return true;
    }

    /**
     * Whether a member equals {@code c} (id, address, gateway port), so that offering {@code c} again would change
     * nothing. The same object is looked for first: in the simulator a contact travels by reference, and comparing
     * references reads no member's id.
     */
    boolean holds(Contact c) {
        for (int i = 0; i < cw.size(); i++) {
            if (cw.get(i) == c) {
                return true;
            }
        }
        for (int i = 0; i < ccw.size(); i++) {
            if (ccw.get(i) == c) {
                return true;
            }
        }
        int i = indexOf(cw, c.id());
        if (i >= 0) {
            return cw.get(i).equals(c);
        }
        i = indexOf(ccw, c.id());
        return i >= 0 && ccw.get(i).equals(c);
    }

    private static boolean contains(List<Contact> side, Id id) {
        return indexOf(side, id) >= 0;
    }

    boolean contains(Id id) {
        return indexOf(cw, id) >= 0 || indexOf(ccw, id) >= 0;
    }

    /** The member with this id, or null. */
    Contact find(Id id) {
        int i = indexOf(cw, id);
        if (i >= 0) {
            return cw.get(i);
        }
        i = indexOf(ccw, id);
        return i >= 0 ? ccw.get(i) : null;
    }

    private static int indexOf(List<Contact> side, Id id) {
        for (int i = 0; i < side.size(); i++) {
            if (side.get(i).id().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    /** Members without duplicates, unmodifiable: counter-clockwise side nearest first, then the clockwise side. */
    List<Contact> members() {
        if (members == null) {
            List<Contact> all = new ArrayList<>(ccw.size() + cw.size());
            all.addAll(ccw);
            for (Contact c : cw) {
                if (indexOf(ccw, c.id()) < 0) {
                    all.add(c);
                }
            }
            members = List.copyOf(all);
        }
        return members;
    }

    List<Contact> clockwise() {
        return List.copyOf(cw);
    }

    List<Contact> counterClockwise() {
        return List.copyOf(ccw);
    }

    boolean isEmpty() {
        return cw.isEmpty();
    }

    /**
     * True when this node's view decides who is closest to {@code key}: the key lies between the farthest members
     * of the two sides, or a side is not full or the sides overlap, which means the whole overlay fits in the leaf
     * set.
     */
    boolean covers(Id key) {
        // A side not full, or a member on both sides, means the leaf set holds the whole overlay.
        if (cw.size() < half || ccw.size() < half || contains(ccw, cw.get(cw.size() - 1).id())) {
            return true;
        }
        Id low = ccw.get(ccw.size() - 1).id();
        Id high = cw.get(cw.size() - 1).id();
        return key.minus(low).compareTo(high.minus(low)) <= 0;
    }

    /**
     * The {@code n} nodes closest to {@code key} among this node and its members that pass {@code usable}, closest
     * first (this node always counts as usable).
     */
    List<Contact> closest(Id key, int n, Predicate<Contact> usable) {
        List<Contact> candidates = new ArrayList<>(members());
        candidates.removeIf(c -> !usable.test(c));
        candidates.add(self);
        candidates.sort((a, b) -> a.id().equals(b.id()) ? 0 : a.id().isCloserTo(key, b.id()) ? -1 : 1);
        return candidates.size() > n ? new ArrayList<>(candidates.subList(0, n)) : candidates;
    }

    int size() {
        return members().size();
    }
}
