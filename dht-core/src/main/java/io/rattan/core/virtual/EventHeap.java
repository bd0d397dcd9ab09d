package io.rattan.core.virtual;

import java.util.Arrays;

/**
 * The scheduler's queue: items ordered by (time, sequence number), a binary heap over parallel arrays. The keys sit
 * in primitive arrays, so sifting compares longs in place instead of calling {@code compareTo} on objects scattered
 * over the heap; a world of 10,000 nodes keeps tens of thousands of events queued and runs millions per second.
 * The order is total (sequence numbers are unique), so it is exactly the order a {@code PriorityQueue} of
 * (time, seq) would give.
 */
final class EventHeap<T> {

    private long[] times = new long[256];
    private long[] seqs = new long[256];
    private Object[] items = new Object[256];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The time of the first item; the heap must not be empty. */
    long peekTime() {
        return times[0];
    }

    void add(long time, long seq, T item) {
        if (size == times.length) {
            int capacity = size * 2;
            times = Arrays.copyOf(times, capacity);
            seqs = Arrays.copyOf(seqs, capacity);
            items = Arrays.copyOf(items, capacity);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(time, seq, times[parent], seqs[parent])) {
                break;
            }
            times[i] = times[parent];
            seqs[i] = seqs[parent];
            items[i] = items[parent];
            i = parent;
        }
        times[i] = time;
        seqs[i] = seq;
        items[i] = item;
    }

    /** Removes and returns the first item; the heap must not be empty. */
    @SuppressWarnings("unchecked")
    T poll() {
        T first = (T) items[0];
        int last = --size;
        long time = times[last];
        long seq = seqs[last];
        Object item = items[last];
        items[last] = null;
        if (last > 0) {
            int i = 0;
            int half = last >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int right = child + 1;
                if (right < last && before(times[right], seqs[right], times[child], seqs[child])) {
                    child = right;
                }
                if (!before(times[child], seqs[child], time, seq)) {
                    break;
                }
                times[i] = times[child];
                seqs[i] = seqs[child];
                items[i] = items[child];
                i = child;
            }
            times[i] = time;
            seqs[i] = seq;
            items[i] = item;
        }
        return first;
    }

    private static boolean before(long time, long seq, long otherTime, long otherSeq) {
        return time < otherTime || (time == otherTime && seq < otherSeq);
    }
}
