package io.rattan.core.node;

import java.util.ArrayList;
import java.util.List;

/**
 * A map from long to values with open addressing and no boxing, for the requests a node has in flight: a request is
 * registered and completed on almost every message, where a {@code LinkedHashMap<Long, …>} costs a boxed key and an
 * entry per request and a chain of pointers per lookup. Keys are any long. {@link #values()} lists the values in
 * slot order, which depends on hashing: callers that need an order sort what it returns.
 */
final class LongMap<V> {

    private long[] keys = new long[16];
    private Object[] values = new Object[16];
    private int size;

    @SuppressWarnings("unchecked")
    V get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Puts a non-null value for {@code key}, replacing any. */
    void put(long key, V value) {
        if (value == null) {
            throw new IllegalArgumentException("null value");
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (values[i] != null) {
            if (keys[i] == key) {
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

    /** Removes {@code key} and returns its value, or null; backward-shift deletion keeps probe chains unbroken. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (true) {
            if (values[i] == null) {
                return null;
            }
            if (keys[i] == key) {
                break;
            }
            i = (i + 1) & mask;
        }
        V removed = (V) values[i];
        size--;
        int hole = i;
        for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            // Move j into the hole when its home slot does not lie cyclically in (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = null;
        return removed;
    }

    int size() {
        return size;
    }

    /** Every value, in slot order. */
    @SuppressWarnings("unchecked")
    List<V> values() {
        List<V> out = new ArrayList<>(size);
        for (Object v : values) {
            if (v != null) {
                out.add((V) v);
            }
        }
        return out;
    }

    /** Removes every entry. */
    void clear() {
        java.util.Arrays.fill(values, null);
        size = 0;
    }

    private void resize(int capacity) {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[capacity];
        values = new Object[capacity];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                @SuppressWarnings("unchecked")
                V v = (V) oldValues[i];
                put(oldKeys[i], v);
            }
        }
    }

    private static int slot(long key, int mask) {
        // Request ids are consecutive: mix so that neighbouring ids spread over the table.
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}
