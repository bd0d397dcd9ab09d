package io.rattan.core.node;

import io.rattan.api.Id;
import java.util.Arrays;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * A map from {@link Id} to values with open addressing, for the per-peer state a node looks up on every message.
 * Two arrays and no entry objects: a lookup costs one or two cache misses where a {@code HashMap} costs four (table,
 * node, key, value), and a slot costs 8 bytes where a {@code HashMap} entry costs 32; with thousands of nodes in one
 * simulator the working set is far larger than the caches. Ids are random, so their top word is already a good hash.
 * Iteration order depends on hashing: use {@link #forEachValue} only for order-free results.
 */
final class IdMap<V> {

    private Id[] keys = new Id[16];
    private Object[] values = new Object[16];
    private int size;

    @SuppressWarnings("unchecked")
    V get(Id key) {
        int mask = keys.length - 1;
        for (int i = slot(key.hi(), mask); ; i = (i + 1) & mask) {
            Id k = keys[i];
            if (k == null) {
                return null;
            }
            if (k.equals(key)) {
                return (V) values[i];
            }
        }
    }

    void put(Id key, V value) {
        int mask = keys.length - 1;
        int i = slot(key.hi(), mask);
        while (keys[i] != null) {
            if (keys[i].equals(key)) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        if (++size * 2 > keys.length) {
            resize(keys.length * 2);
        }
    }

    /** Removes {@code key}; backward-shift deletion keeps every probe chain unbroken without tombstones. */
    void remove(Id key) {
        int mask = keys.length - 1;
        int i = slot(key.hi(), mask);
        while (true) {
            if (keys[i] == null) {
                return;
            }
            if (keys[i].equals(key)) {
                break;
            }
            i = (i + 1) & mask;
        }
        size--;
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j].hi(), mask);
            // Move j into the hole when its home slot does not lie cyclically in (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = null;
        values[hole] = null;
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    void forEachValue(Consumer<V> action) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                action.accept((V) values[i]);
            }
        }
    }

    /** The number of slots: what a full {@link #sweep} pass visits. */
    int capacity() {
        return keys.length;
    }

    /**
     * Visits {@code count} slots from slot {@code from} on (wrapping), removing each entry {@code drop} accepts, and
     * returns the slot to start the next call at. A caller that sweeps a few slots at a time bounds the map without
     * stopping to iterate it whole. An entry that a removal shifts back into a slot already visited waits for the
     * next pass. The order is the slots', which depends only on the keys and the history of the map, never on
     * identity hashes, so a sweep is deterministic.
     */
    @SuppressWarnings("unchecked")
    int sweep(int from, int count, BiPredicate<Id, V> drop) {
        int mask = keys.length - 1;
        int i = from & mask;
        for (int visited = 0; visited < count; visited++) {
            Id k = keys[i];
            if (k != null && drop.test(k, (V) values[i])) {
                remove(k);
            }
            i = (i + 1) & mask;
        }
        return i;
    }

    private void resize(int capacity) {
        Id[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new Id[capacity];
        values = new Object[capacity];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                @SuppressWarnings("unchecked")
                V v = (V) oldValues[i];
                put(oldKeys[i], v);
            }
        }
    }

    private static int slot(long hi, int mask) {
        // Ids are uniform, but a node's neighbours share its leading digits: mix so the low bits differ.
        long h = hi * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}
