package io.rattan.sim.net;

import java.util.Arrays;

/**
 * The messages each node has been sent and has not finished serving: arrival and end of service, in the order
 * their services were booked. Ends grow in that order (each service starts no earlier than the one before ends), so
 * finished ones leave from the front. Answers when a node's loop is free for a timer: after every message that
 * arrived before the timer fell due. A node's queue is allocated on its first message and is usually empty or a few
 * entries long: only a slow node's grows. Capacities are powers of two, so a ring index is a mask, not a division:
 * every message and every timer of a simulated node looks here.
 */
final class ServiceQueues {

    private static final int INITIAL = 4;

    private final long[][] arrivals;
    private final long[][] ends;
    private final int[] heads;
    private final int[] sizes;

    ServiceQueues(int nodes) {
        arrivals = new long[nodes][];
        ends = new long[nodes][];
        heads = new int[nodes];
        sizes = new int[nodes];
    }

    /** Books a message to {@code node} that arrives at {@code arrival} and is served by {@code end}, at {@code now}. */
    void add(int node, long now, long arrival, long end) {
        dropServed(node, now);
        if (arrivals[node] == null) {
            arrivals[node] = new long[INITIAL];
            ends[node] = new long[INITIAL];
        } else if (sizes[node] == arrivals[node].length) {
            grow(node);
        }
        int at = (heads[node] + sizes[node]) & (arrivals[node].length - 1);
        arrivals[node][at] = arrival;
        ends[node][at] = end;
        sizes[node]++;
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
        long[] e = new long[capacity * 2];
        for (int i = 0; i < n; i++) {
            a[i] = arrivals[node][(heads[node] + i) & (capacity - 1)];
            e[i] = ends[node][(heads[node] + i) & (capacity - 1)];
        }
        arrivals[node] = a;
        ends[node] = e;
        heads[node] = 0;
    }
}
