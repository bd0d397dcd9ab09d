package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The L nodes numerically nearest on each side of this node. The clockwise side holds the nodes with the smallest
 * {@code (c − self)}, the counter-clockwise side those with the smallest {@code (self − c)}; in an overlay of at
 * most 2L+1 nodes a node may sit on both sides. Not thread-safe: owned by the node's event loop.
 *
 * <p>With a per-host bound N ({@link NodeConfig#idsPerIp}), at most N members share a host ({@link HostKeys}):
 * of the ids of one host, the N nearest this node are kept, so one host that announces thousands of ids next to a
 * key holds N places, never the whole set. Ids at this node's own host are not counted: a local cluster runs every
 * node on one address, and a node has no reason to fear its own machine.
 *
 * <p>Public (building a set, offering contacts, reading it) only for bench's microbenchmark of a hop's choice.
 */
public final class LeafSet {

    private final Contact self;
    private final int half;
    /** Most members per host, or -1 for no bound. */
    private final int idsPerIp;
    private final String selfHost;
    private final List<Contact> cw = new ArrayList<>();
    private final List<Contact> ccw = new ArrayList<>();
    private final Comparator<Contact> byCw;
    private final Comparator<Contact> byCcw;
    /**
     * {@link #members()}, built once per change of the set: a node lists its members in every leaf-set exchange, in
     * every pong's suggestion and on every routing decision, and the set changes far less often.
     */
    private List<Contact> members;

    /** A leaf set with no per-host bound. */
    public LeafSet(Contact self, int half) {
        this(self, half, -1);
    }

    /** A leaf set holding at most {@code idsPerIp} members per host but this node's own (-1: no bound). */
    LeafSet(Contact self, int half, int idsPerIp) {
        this.self = self;
        this.half = half;
        this.idsPerIp = idsPerIp;
        this.selfHost = HostKeys.of(self.address().host());
        Id s = self.id();
        this.byCw = (a, b) -> s.compareClockwise(a.id(), b.id());
        // (s − a) < (s − b) exactly when (a − s) > (b − s), for a and b other than s, which no side ever holds.
        this.byCcw = (a, b) -> s.compareClockwise(b.id(), a.id());
    }

    /**
     * Adds {@code c} where it belongs; returns true when the set changed. With the per-host bound, a newcomer whose
     * host holds its share already gets in only if it is nearer this node than the farthest of them, which it
     * replaces.
     */
    public boolean add(Contact c) {
        if (c.id().equals(self.id())) {
            return false;
        }
        if (idsPerIp > 0 && !makeRoomFor(c, true)) {
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

    /**
     * Whether the per-host bound lets {@code c} in; when its host holds its share and {@code c} is nearer than the
     * farthest of them, that one is removed to make room. Members heard again, and contacts that lie beyond both
     * full sides (most offers), cost two comparisons and a scan of the members.
     */
    private boolean makeRoomFor(Contact c, boolean evict) {
        if (!fits(cw, c, byCw) && !fits(ccw, c, byCcw)) {
            // It will not get in anyway.
            return true;
        }
        Contact existing = find(c.id());
        if (existing != null && existing.address().host().equals(c.address().host())) {
            return true;
        }
        String host = HostKeys.of(c.address().host());
        if (host.equals(selfHost)) {
            return true;
        }
        Contact farthest = null;
        int sameHost = 0;
        for (Contact m : members()) {
            if (m.id().equals(c.id()) || !HostKeys.of(m.address().host()).equals(host)) {
                continue;
            }
            sameHost++;
            if (farthest == null || farthest.id().isCloserTo(self.id(), m.id())) {
                farthest = m;
            }
        }
        if (sameHost < idsPerIp) {
            return true;
        }
        if (!c.id().isCloserTo(self.id(), farthest.id())) {
            return false;
        }
        if (evict) {
            remove(farthest.id());
        }
        return true;
    }

    /**
     * Whether {@link #add} would take {@code c} in as a new member (its id is none yet): what a second-hand contact
     * must promise before it is worth a probe. Changes nothing.
     */
    boolean wouldTake(Contact c) {
        if (c.id().equals(self.id()) || contains(c.id()) || (!fits(cw, c, byCw) && !fits(ccw, c, byCcw))) {
            return false;
        }
        return idsPerIp <= 0 || makeRoomFor(c, false);
    }

    /** Whether {@code c} would take a place on {@code side}: the side has room, or {@code c} is nearer than its last. */
    private boolean fits(List<Contact> side, Contact c, Comparator<Contact> order) {
        return side.size() < half || order.compare(c, side.get(side.size() - 1)) < 0;
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

    /** Whether the node with this id is a member, on either side. */
    public boolean contains(Id id) {
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
    public List<Contact> members() {
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
        if (cw.size() < half || ccw.size() < half || sidesShareAMember()) {
            return true;
        }
        Id low = ccw.get(ccw.size() - 1).id();
        Id high = cw.get(cw.size() - 1).id();
        return key.minus(low).compareTo(high.minus(low)) <= 0;
    }

    /**
     * Whether every node closer to {@code key} than this node is a member: the last member on the key's side, and on
     * the key's half of the ring, is no closer to the key than this node, or the sides hold the whole overlay
     * ({@link #holdsTheWholeOverlay}). A side that is only short ends at its nearer
     * member: right after a member is declared dead, a node may lie unseen beyond it ({@link ViewReach#seesPastKey}).
     */
    boolean seesPast(Id key, BooleanSupplier knowsOthers) {
        if (cw.isEmpty() && ccw.isEmpty()) {
            return true;
        }
        // Sides that overlap both ways are the whole overlay only if this node knows no usable node outside them: a
        // side short of a member declared dead may end with the other side's last member, and then looks the same.
        if (holdsTheWholeOverlay() && !knowsOthers.getAsBoolean()) {
            return true;
        }
        Id s = self.id();
        boolean keyCw = clockwiseHalf(key);
        // A side with room takes every contact offered, so once this node knows few nodes on that side (its
        // neighbours there died, or a partition hid them) the side may end with a node from the other half of the
        // ring, nearer this node the other way round, with nodes it does not know in between. Its edge is the last
        // member on the key's half: counting a far member, a node would take itself for a replica of keys far away.
        Contact last = lastOnHalf(keyCw ? cw : ccw, keyCw);
        return last != null && !last.id().isCloserTo(key, s);
    }

    /**
     * True only if every node closer to {@code key} than {@code ref} is a member or this node: the key lies between the
     * sides' ends (each side's last member on its own half of the ring, as in {@link #seesPast}), and neither end is
     * closer to the key than {@code ref}, so any node this node does not know lies further out. False where it cannot
     * tell (no member on a side's own half, sides that wrap): a holder asks it of a peer before it trusts its own
     * ranking of that peer among the key's nearest, and doubt costs only a tombstone sent later by another holder.
     */
    boolean knowsAllCloser(Id key, Id ref, BooleanSupplier knowsOthers) {
        if (holdsTheWholeOverlay() && !knowsOthers.getAsBoolean()) {
            return true;
        }
        Contact high = lastOnHalf(cw, true);
        Contact low = lastOnHalf(ccw, false);
        if (high == null || low == null) {
            return false;
        }
        boolean between = key.minus(low.id()).compareTo(high.id().minus(low.id())) <= 0;
        return between && !high.id().isCloserTo(key, ref) && !low.id().isCloserTo(key, ref);
    }

    private Contact lastOnHalf(List<Contact> side, boolean clockwise) {
        Contact last = null;
        for (Contact c : side) {
            if (clockwiseHalf(c.id()) == clockwise) {
                last = c;
            }
        }
        return last;
    }

    /** Whether {@code id} lies on the clockwise half of the ring from this node. */
    private boolean clockwiseHalf(Id id) {
        Id s = self.id();
        return id.minus(s).compareTo(s.minus(id)) <= 0;
    }

    /**
     * Whether the sides hold every node of the overlay: each side's last member is a member of the other side. In a
     * small overlay each side holds the nearest of all the others, so the sides overlap both ways. One way is not
     * enough: a side left with room after its members died takes the next contact offered, which may be the other
     * side's nearest member while the nodes between them, most of the ring, are unknown.
     */
    private boolean holdsTheWholeOverlay() {
        return sidesShareAMember() && contains(cw, ccw.get(ccw.size() - 1).id());
    }

    private boolean sidesShareAMember() {
        return !cw.isEmpty() && contains(ccw, cw.get(cw.size() - 1).id());
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

    /** The members without duplicates, counter-clockwise side first (a copy). */
    List<Contact> withoutDuplicates() {
        List<Contact> leaves = new ArrayList<>(counterClockwise());
        for (Contact c : clockwise()) {
            if (!leaves.contains(c)) {
                leaves.add(c);
            }
        }
        return leaves;
    }
}
