package io.rattan.core.virtual;

import io.rattan.api.Address;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A {@link VirtualWorld}'s node slots by index, and the lists of indexes the world picks nodes from: live, serving,
 * not yet joined. Single-threaded, like the world.
 */
final class NodeSlots {

    private final List<NodeSlot> slots = new ArrayList<>();

    /** Adds {@code slot} as the next index. */
    void add(NodeSlot slot) {
        slots.add(slot);
    }

    NodeSlot get(int index) {
        return slots.get(index);
    }

    int size() {
        return slots.size();
    }

    boolean isEmpty() {
        return slots.isEmpty();
    }

    /** Every slot, in index order. */
    List<NodeSlot> all() {
        return Collections.unmodifiableList(slots);
    }

    List<Integer> liveIndexes() {
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).alive) {
                live.add(i);
            }
        }
        return live;
    }

    /** The nodes alive, joined and not leaving, in index order. */
    int[] joinedIndexes() {
        int[] out = new int[slots.size()];
        int n = 0;
        for (int i = 0; i < slots.size(); i++) {
            NodeSlot s = slots.get(i);
            if (s.alive && !s.leaving && s.node.isJoined()) {
                out[n++] = i;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** How many of the nodes {@code first} to {@code end} (exclusive) have not joined. */
    int unjoined(int first, int end) {
        int n = 0;
        for (int i = first; i < end; i++) {
            n += slots.get(i).node.isJoined() ? 0 : 1;
        }
        return n;
    }

    /** Up to {@code k} distinct addresses of the nodes {@code from} names, drawn from {@code random}. */
    List<Address> randomDistinct(int[] from, int k, SplittableRandom random) {
        List<Address> out = new ArrayList<>(k);
        int m = Math.min(k, from.length);
        int[] picked = new int[m];
        while (out.size() < m) {
            int index = from[random.nextInt(from.length)];
            boolean fresh = true;
            for (int i = 0; i < out.size(); i++) {
                fresh &= picked[i] != index;
            }
            if (fresh) {
                picked[out.size()] = index;
                out.add(slots.get(index).contact.address());
            }
        }
        return out;
    }
}
