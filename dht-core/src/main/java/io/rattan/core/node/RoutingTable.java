package io.rattan.core.node;

import io.rattan.core.id.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Pastry's routing table: row r holds nodes sharing exactly r leading digits with this node, column d those whose
 * next digit is d; each slot keeps a few candidates, the lowest measured RTT preferred (proximity neighbour
 * selection). Not thread-safe: owned by the node's event loop.
 */
final class RoutingTable {

    private static final int COLUMNS = 16;

    private final Id self;
    private final int perSlot;
    private final ToLongFunction<Id> rttNanos;
    private final Contact[][][] rows = new Contact[Id.DIGITS][][];
    private int entries;

    /**
     * @param rttNanos the smoothed RTT of a peer, or a negative number when unmeasured
     */
    RoutingTable(Id self, int perSlot, ToLongFunction<Id> rttNanos) {
        this.self = self;
        this.perSlot = perSlot;
        this.rttNanos = rttNanos;
    }

    /** Offers a contact; returns true when the table changed. */
    boolean add(Contact c) {
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
            rows[row][col] = new Contact[] {c};
            entries++;
            return true;
        }
        for (int i = 0; i < slot.length; i++) {
            if (slot[i].id().equals(c.id())) {
                if (slot[i].equals(c)) {
                    return false;
                }
                slot[i] = c;
                return true;
            }
        }
        if (slot.length < perSlot) {
            Contact[] grown = java.util.Arrays.copyOf(slot, slot.length + 1);
            grown[slot.length] = c;
            rows[row][col] = grown;
            entries++;
            return true;
        }
        // Full: replace the slowest candidate, but only with a measured, faster one.
        long newRtt = rttNanos.applyAsLong(c.id());
        if (newRtt < 0) {
            return false;
        }
        int worst = -1;
        long worstRtt = -1;
        for (int i = 0; i < slot.length; i++) {
            long r = rttNanos.applyAsLong(slot[i].id());
            long key = r < 0 ? Long.MAX_VALUE : r;
            if (key > worstRtt) {
                worstRtt = key;
                worst = i;
            }
        }
        if (worstRtt > newRtt) {
            slot[worst] = c;
            return true;
        }
        return false;
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
    List<Contact> slotFor(Id key) {
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
    Contact best(List<Contact> slot, Predicate<Contact> usable) {
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
    void forEach(java.util.function.Consumer<Contact> action) {
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
