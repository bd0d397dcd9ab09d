package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Pastry's routing table: row r holds nodes sharing exactly r leading digits with this node, column d those whose
 * next digit is d; each slot keeps a few candidates, the lowest measured RTT preferred (proximity neighbour
 * selection). Not thread-safe: owned by the node's event loop.
 *
 * <p>With a per-host bound N ({@link NodeConfig#idsPerIp}), at most N candidates of the whole table share a host
 * ({@link HostKeys}), so that one host, however fast it answers, is the first hop of at most N slots. A further id
 * of a host at its bound may only replace the slowest of that host's candidates in the same slot, measured faster; in
 * a slot where the host holds none it is refused. Ids at this node's own host are not counted (a local cluster shares
 * one address).
 *
 * <p>Public (building a table, offering contacts, reading it) only for bench's microbenchmark of a hop's choice.
 */
public final class RoutingTable {

    private static final int COLUMNS = 16;

    private final Id self;
    private final int perSlot;
    private final ToLongFunction<Id> rttNanos;
    /** Most candidates per host in the whole table, or -1 for no bound. */
    private final int idsPerIp;
    private final String selfHost;
    private final Contact[][][] rows = new Contact[Id.DIGITS][][];
    // Candidates (not at this node's host) whose host key hashes to each bucket: no fewer than any one host holds, so
    // a host whose bucket is below the bound is below it without a scan of the table. Null with no bound.
    private final short[] hostBuckets;
    private int entries;

    /**
     * @param rttNanos the smoothed RTT of a peer, or a negative number when unmeasured
     */
    public RoutingTable(Id self, int perSlot, ToLongFunction<Id> rttNanos) {
        this(self, perSlot, rttNanos, -1, null);
    }

    /**
     * @param rttNanos the smoothed RTT of a peer, or a negative number when unmeasured
     * @param idsPerIp most candidates per host in the whole table (-1: no bound)
     * @param selfHost this node's host, whose ids are not counted (may be null with no bound)
     */
    RoutingTable(Id self, int perSlot, ToLongFunction<Id> rttNanos, int idsPerIp, String selfHost) {
        this.self = self;
        this.perSlot = perSlot;
        this.rttNanos = rttNanos;
        this.idsPerIp = idsPerIp;
        this.selfHost = selfHost == null ? null : HostKeys.of(selfHost);
        this.hostBuckets = idsPerIp > 0 ? new short[HOST_BUCKETS] : null;
    }

    /** Offers a contact; returns true when the table changed. */
    public boolean add(Contact c) {
        if (c.id().equals(self)) {
            return false;
        }
        int row = self.sharedPrefixLength(c.id());
        int col = c.id().digit(row);
        if (rows[row] == null) {
            rows[row] = new Contact[COLUMNS][];
        }
        Contact[] slot = rows[row][col];
        if (slot == null) {
            slot = NO_CANDIDATES;
        }
        for (int i = 0; i < slot.length; i++) {
            if (slot[i].id().equals(c.id())) {
                if (slot[i].equals(c) || !sameHost(slot[i], c) && atBound(HostKeys.of(c.address().host()))) {
                    return false;
                }
                counted(slot[i], -1);
                counted(c, 1);
                slot[i] = c;
                return true;
            }
        }
        if (idsPerIp > 0) {
            int bounded = boundedByHost(slot, c);
            if (bounded != NOT_BOUNDED) {
                return bounded == 1;
            }
        }
        if (slot.length < perSlot) {
            Contact[] grown = java.util.Arrays.copyOf(slot, slot.length + 1);
            grown[slot.length] = c;
            rows[row][col] = grown;
            entries++;
            counted(c, 1);
            return true;
        }
        // Full: replace the slowest candidate, but only with a measured, faster one.
        Contact replaced = replaceSlowest(slot, c, x -> true);
        if (replaced != null) {
            counted(replaced, -1);
            counted(c, 1);
        }
        return replaced != null;
    }

    /**
     * Puts {@code c} in place of the slowest candidate of {@code slot} that {@code among} accepts (an unmeasured one
     * counts as slowest), if {@code c} is measured and faster; the candidate it replaced, or null.
     */
    private Contact replaceSlowest(Contact[] slot, Contact c, Predicate<Contact> among) {
        long newRtt = rttNanos.applyAsLong(c.id());
        int slowest = -1;
        long slowestRtt = -1;
        for (int i = 0; i < slot.length; i++) {
            if (!among.test(slot[i])) {
                continue;
            }
            long r = rttNanos.applyAsLong(slot[i].id());
            long key = r < 0 ? Long.MAX_VALUE : r;
            if (key > slowestRtt) {
                slowestRtt = key;
                slowest = i;
            }
        }
        if (slowest < 0 || newRtt < 0 || slowestRtt <= newRtt) {
            return null;
        }
        Contact replaced = slot[slowest];
        slot[slowest] = c;
        return replaced;
    }

    private static final int NOT_BOUNDED = -1;
    private static final int HOST_BUCKETS = 256;
    private static final Contact[] NO_CANDIDATES = {};

    private static boolean sameHost(Contact a, Contact b) {
        return HostKeys.of(a.address().host()).equals(HostKeys.of(b.address().host()));
    }

    /**
     * Applies the per-host bound to a new candidate {@code c} of {@code slot}: {@link #NOT_BOUNDED} when its host
     * holds fewer than its share of the table (the slot's own rule decides), else 1 when {@code c} replaced the
     * slowest of its host in this slot (it is measured and faster) and 0 when it was refused.
     */
    private int boundedByHost(Contact[] slot, Contact c) {
        String host = HostKeys.of(c.address().host());
        if (!atBound(host)) {
            return NOT_BOUNDED;
        }
        // One of the host's own candidates gives way: its count stays as it was.
        return replaceSlowest(slot, c, s -> HostKeys.of(s.address().host()).equals(host)) != null ? 1 : 0;
    }

    /** Whether {@code host} (a {@link HostKeys} key) holds its bound of the table: never this node's own. */
    private boolean atBound(String host) {
        return idsPerIp > 0 && !host.equals(selfHost) && hostBuckets[bucketOf(host)] >= idsPerIp
                && heldBy(host) >= idsPerIp;
    }

    /** Counts {@code c} into its host's bucket ({@code delta} 1) or out of it (-1); not at this node's host. */
    private void counted(Contact c, int delta) {
        if (hostBuckets == null) {
            return;
        }
        String host = HostKeys.of(c.address().host());
        if (!host.equals(selfHost)) {
            hostBuckets[bucketOf(host)] += (short) delta;
        }
    }

    private static int bucketOf(String hostKey) {
        return hostKey.hashCode() & (HOST_BUCKETS - 1);
    }

    /** How many candidates of the whole table are at {@code host} (a {@link HostKeys} key). */
    private int heldBy(String host) {
        int[] n = {0};
        forEach(c -> {
            if (HostKeys.of(c.address().host()).equals(host)) {
                n[0]++;
            }
        });
        return n[0];
    }

    /**
     * Whether {@link #add} would take {@code c} in as a new, unmeasured candidate: its slot has room, and its host
     * is below its bound. Changes nothing.
     */
    boolean wouldTake(Contact c) {
        if (c.id().equals(self)) {
            return false;
        }
        Contact[] slot = slotArray(c.id());
        if (slot != null) {
            if (slot.length >= perSlot) {
                return false;
            }
            for (Contact s : slot) {
                if (s.id().equals(c.id())) {
                    return false;
                }
            }
        }
        return !atBound(HostKeys.of(c.address().host()));
    }

    boolean remove(Id id) {
        int row = self.sharedPrefixLength(id);
        if (row >= Id.DIGITS || rows[row] == null) {
            return false;
        }
        int col = id.digit(row);
        Contact[] slot = rows[row][col];
        if (slot == null) {
            return false;
        }
        for (int i = 0; i < slot.length; i++) {
            if (slot[i].id().equals(id)) {
                counted(slot[i], -1);
                if (slot.length == 1) {
                    rows[row][col] = null;
                } else {
                    Contact[] shrunk = new Contact[slot.length - 1];
                    System.arraycopy(slot, 0, shrunk, 0, i);
                    System.arraycopy(slot, i + 1, shrunk, i, slot.length - i - 1);
                    rows[row][col] = shrunk;
                }
                entries--;
                return true;
            }
        }
        return false;
    }

    /** The candidate with this id, or null. */
    Contact find(Id id) {
        Contact[] slot = slotArray(id);
        if (slot != null) {
            for (Contact c : slot) {
                if (c.id().equals(id)) {
                    return c;
                }
            }
        }
        return null;
    }

    /** Whether a node with this id is a candidate of its slot. */
    boolean contains(Id id) {
        Contact[] slot = slotArray(id);
        if (slot != null) {
            for (Contact c : slot) {
                if (c.id().equals(id)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The candidates of the slot a key routes through from this node (possibly empty). */
    public List<Contact> slotFor(Id key) {
        Contact[] slot = slotArray(key);
        return slot == null ? List.of() : List.of(slot);
    }

    private Contact[] slotArray(Id key) {
        int row = self.sharedPrefixLength(key);
        if (row >= Id.DIGITS || rows[row] == null) {
            return null;
        }
        return rows[row][key.digit(row)];
    }

    /** The best (lowest-RTT, unmeasured last) usable candidate of a slot, or null. */
    public Contact best(List<Contact> slot, Predicate<Contact> usable) {
        Contact best = null;
        long bestRtt = Long.MAX_VALUE;
        for (Contact c : slot) {
            if (!usable.test(c)) {
                continue;
            }
            long r = rttNanos.applyAsLong(c.id());
            long key = r < 0 ? Long.MAX_VALUE - 1 : r;
            if (best == null || key < bestRtt) {
                best = c;
                bestRtt = key;
            }
        }
        return best;
    }

    /** Every contact in the table, row by row. */
    List<Contact> all() {
        List<Contact> out = new ArrayList<>(entries);
        for (Contact[][] row : rows) {
            if (row == null) {
                continue;
            }
            for (Contact[] slot : row) {
                if (slot != null) {
                    out.addAll(List.of(slot));
                }
            }
        }
        return out;
    }

    /**
     * The contact {@link #all()} would list at {@code index}, without building the list: the node probes one table
     * entry per second in turn.
     */
    Contact get(int index) {
        if (index < 0 || index >= entries) {
            throw new IndexOutOfBoundsException("entry " + index + " of " + entries);
        }
        int skip = index;
        for (Contact[][] row : rows) {
            if (row == null) {
                continue;
            }
            for (Contact[] slot : row) {
                if (slot != null) {
                    if (skip < slot.length) {
                        return slot[skip];
                    }
                    skip -= slot.length;
                }
            }
        }
        throw new IllegalStateException("entries count out of step with the slots");
    }

    /** Calls {@code action} on every contact in the table, in {@link #all()}'s order, without building a list. */
    public void forEach(java.util.function.Consumer<Contact> action) {
        for (Contact[][] row : rows) {
            if (row == null) {
                continue;
            }
            for (Contact[] slot : row) {
                if (slot != null) {
                    for (Contact c : slot) {
                        action.accept(c);
                    }
                }
            }
        }
    }

    /** Filled slots per row, trailing empty rows omitted. */
    List<Integer> rowFill() {
        List<Integer> fill = new ArrayList<>();
        int last = -1;
        for (int r = 0; r < rows.length; r++) {
            int n = 0;
            if (rows[r] != null) {
                for (Contact[] slot : rows[r]) {
                    if (slot != null) {
                        n++;
                    }
                }
            }
            fill.add(n);
            if (n > 0) {
                last = r;
            }
        }
        return new ArrayList<>(fill.subList(0, last + 1));
    }

    int size() {
        return entries;
    }
}
