package io.rattan.sim.net;

import java.util.Arrays;

/**
 * The messages each node has been sent and has not finished serving: arrival, start and end of service, in the
 * order their services were booked. Services never overlap, but a message booked later may be served earlier, in an
 * idle gap before a booking whose message is still on the way ({@link #idleFrom}, {@link #fits}); finished ones
 * leave from the front once those booked before them have finished too. Answers when a node's loop is free for a
 * timer: after every message that arrived before the timer fell due. A node's queue is allocated on its first message and is usually empty or a few
 * entries long: only a slow node's grows. Capacities are powers of two, so a ring index is a mask, not a division:
 * every message and every timer of a simulated node looks here.
 */
final class ServiceQueues {

    private static final int INITIAL = 4;

    // A queue longer than this is not searched for gaps: its node is overloaded, and a message waits for the end.
    private static final int SEARCHED_MAX = 64;

    private final long[][] arrivals;
    private final long[][] starts;
    private final long[][] ends;
    private final int[] heads;
    private final int[] sizes;

    ServiceQueues(int nodes) {
        arrivals = new long[nodes][];
        starts = new long[nodes][];
        ends = new long[nodes][];
        heads = new int[nodes];
        sizes = new int[nodes];
    }

    /**
     * Books a message to {@code node} that arrives at {@code arrival} and is served from {@code start} to
     * {@code end}, at {@code now}.
     */
    void add(int node, long now, long arrival, long start, long end) {
        dropServed(node, now);
        if (arrivals[node] == null) {
            arrivals[node] = new long[INITIAL];
            starts[node] = new long[INITIAL];
            ends[node] = new long[INITIAL];
        } else if (sizes[node] == arrivals[node].length) {
            grow(node);
        }
        int at = (heads[node] + sizes[node]) & (arrivals[node].length - 1);
        arrivals[node][at] = arrival;
        starts[node][at] = start;
        ends[node][at] = end;
        sizes[node]++;
    }

    /**
     * The first moment from {@code from} on at which {@code node} serves no booked message, or -1 when its queue is
     * too long to search (the caller then waits for the last booking's end).
     */
    long idleFrom(int node, long now, long from) {
        dropServed(node, now);
        int n = sizes[node];
        if (n > SEARCHED_MAX) {
            return -1;
        }
        long[] s = starts[node];
        long[] e = ends[node];
        int mask = n == 0 ? 0 : s.length - 1;
        long t = from;
        // Each pass moves t past every booking it falls in; bookings do not overlap, so n passes always settle.
        for (boolean moved = true; moved; ) {
            moved = false;
            for (int i = 0; i < n; i++) {
                int at = (heads[node] + i) & mask;
                if (s[at] <= t && t < e[at]) {
                    t = e[at];
                    moved = true;
                }
            }
        }
        return t;
    }

    /** Whether a service from {@code start} (an idle moment) to {@code end} ends before the next booking starts. */
    boolean fits(int node, long start, long end) {
        int n = sizes[node];
        long[] s = starts[node];
        int mask = n == 0 ? 0 : s.length - 1;
        for (int i = 0; i < n; i++) {
            long other = s[(heads[node] + i) & mask];
            if (other > start && other < end) {
                return false;
            }
        }
        return true;
    }

    /** When {@code node} has served every message that arrived by {@code now}; {@code now} if it has. */
    long readyAt(int node, long now) {
        dropServed(node, now);
        long ready = now;
        int n = sizes[node];
        if (n == 0) {
            return ready;
        }
        long[] a = arrivals[node];
        long[] e = ends[node];
        int mask = a.length - 1;
        for (int i = 0; i < n; i++) {
            int at = (heads[node] + i) & mask;
            if (a[at] <= now) {
                ready = Math.max(ready, e[at]);
            }
        }
        return ready;
    }

    private void dropServed(int node, long now) {
        int n = sizes[node];
        if (n == 0) {
            return;
        }
        long[] e = ends[node];
        int mask = e.length - 1;
        int head = heads[node];
        while (n > 0 && e[head] <= now) {
            head = (head + 1) & mask;
            n--;
        }
        heads[node] = head;
        sizes[node] = n;
    }

    private void grow(int node) {
        int n = sizes[node];
        int capacity = arrivals[node].length;
        long[] a = new long[capacity * 2];
        long[] s = new long[capacity * 2];
        long[] e = new long[capacity * 2];
        for (int i = 0; i < n; i++) {
            int at = (heads[node] + i) & (capacity - 1);
            a[i] = arrivals[node][at];
            s[i] = starts[node][at];
            e[i] = ends[node][at];
        }
        arrivals[node] = a;
        starts[node] = s;
        ends[node] = e;
        heads[node] = 0;
    }
}
