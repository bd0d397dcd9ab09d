package io.rattan.core.virtual;

/**
 * A map from long to long with open addressing and no boxing: the network's per-link state is looked up once per
 * message, where a {@code HashMap<Long, Long>} costs two allocations and, with keys built from small link numbers,
 * collides badly. Keys are any long except {@link #EMPTY}. Never iterated, so its layout cannot leak into a run.
 */
final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys;
    private long[] values;
    private int size;

    LongLongMap() {
        keys = new long[64];
        values = new long[64];
        java.util.Arrays.fill(keys, EMPTY);
    }

    /** The value of {@code key}, or {@code absent}. */
    long get(long key, long absent) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return absent;
            }
        }
    }

    void put(long key, long value) {
        put(key, value, Long.MIN_VALUE);
    }

    /**
     * Puts {@code key}; when the table would grow, first drops every entry whose value is below {@code dropBelow}
     * and grows only if it is still over a quarter full. The network keeps delivery times this way: one that has
     * passed can no longer hold a message back, so it may as well be absent, and dropping it when the table fills
     * costs nothing per message, where removing it at delivery cost a random memory access per message.
     */
    void put(long key, long value, long dropBelow) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (keys[i] != EMPTY && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (keys[i] == EMPTY) {
            keys[i] = key;
            size++;
        }
        values[i] = value;
        if (size * 2 > keys.length) {
            rebuild(dropBelow);
        }
    }

    /** Removes {@code key} if present; backward-shift deletion keeps every probe chain unbroken without tombstones. */
    void remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (keys[i] != key) {
            if (keys[i] == EMPTY) {
                return;
            }
            i = (i + 1) & mask;
        }
        size--;
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            // Move j into the hole when its home slot does not lie cyclically in (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
    }

    int size() {
        return size;
    }

    private void rebuild(long dropBelow) {
        int live = 0;
        for (int i = 0; i < keys.length; i++) {
            live += keys[i] != EMPTY && values[i] >= dropBelow ? 1 : 0;
        }
        int capacity = live * 4 > keys.length ? keys.length * 2 : keys.length;
        long[] oldKeys = keys;
        long[] oldValues = values;
        keys = new long[capacity];
        values = new long[capacity];
        java.util.Arrays.fill(keys, EMPTY);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY && oldValues[i] >= dropBelow) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
