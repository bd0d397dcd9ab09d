package io.rattan.core.client;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A client's image of the ring, for one-hop gets: the nodes it has learned hold keys, in id order. It starts empty
 * and learns only from answers: a get that asks for holders ({@code wantHolders}) comes back naming the key's
 * replicas as the answering node sees them, which corrects the image where it was wrong or blank, as LH*'s image
 * adjustment messages and ZHT's lazy membership updates do. A node that did not answer is forgotten. At most
 * {@code capacity} nodes are kept (a full image forgets the node learned longest ago). Not thread-safe.
 */
public final class OneHopImage {

    private final int capacity;
    private final TreeMap<Id, Contact> ring = new TreeMap<>();
    // Learn order, for eviction; ids only.
    private final java.util.ArrayDeque<Id> learned = new java.util.ArrayDeque<>();

    public OneHopImage(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** Adds (or refreshes) nodes named in an answer. */
    public void learn(Collection<Contact> holders) {
        for (Contact c : holders) {
            if (ring.put(c.id(), c) == null) {
                learned.addLast(c.id());
            }
        }
        while (ring.size() > capacity) {
            ring.remove(learned.removeFirst());
        }
    }

    /** Drops a node that did not answer. */
    public void forget(Id id) {
        if (ring.remove(id) != null) {
            learned.remove(id);
        }
    }

    /** The {@code n} known nodes closest to {@code key} on the ring, closest first; fewer if fewer are known. */
    public List<Contact> closest(Id key, int n) {
        List<Contact> near = new ArrayList<>();
        // The n closest lie among the n successors and n predecessors of the key.
        Map.Entry<Id, Contact> up = ring.ceilingEntry(key);
        Map.Entry<Id, Contact> down = ring.lowerEntry(key);
        for (int i = 0; i < n && near.size() < ring.size(); i++) {
            if (up == null) {
                up = ring.firstEntry();
            }
            if (!near.contains(up.getValue())) {
                near.add(up.getValue());
            }
            up = ring.higherEntry(up.getKey());
        }
        for (int i = 0; i < n; i++) {
            if (down == null) {
                down = ring.lastEntry();
            }
            if (down == null || near.contains(down.getValue())) {
                break;
            }
            near.add(down.getValue());
            down = ring.lowerEntry(down.getKey());
        }
        near.sort((a, b) -> a.id().distanceTo(key).compareTo(b.id().distanceTo(key)));
        return near.size() > n ? new ArrayList<>(near.subList(0, n)) : near;
    }

    /** Whether the image holds node {@code id}. */
    public boolean contains(Id id) {
        return ring.containsKey(id);
    }

    public int size() {
        return ring.size();
    }
}
