package io.rattan.sim.net;

import java.util.Arrays;

/**
 * The messages each node has been sent and has not finished serving: arrival and end of service, in the order
 * their services were booked. Ends grow in that order (each service starts no earlier than the one before ends), so
 * finished ones leave from the front. Answers when a node's loop is free for a timer: after every message that
 * arrived before the timer fell due. A node's queue is allocated on its first message and is usually empty or a few
 * entries long: only a slow node's grows.
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
        int capacity = arrivals[node].length;
        int at = (heads[node] + sizes[node]) % capacity;
        arrivals[node][at] = arrival;
        ends[node][at] = end;
        sizes[node]++;
    }

    /** When {@code node} has served every message that arrived by {@code now}; {@code now} if it has. */
    long readyAt(int node, long now) {
        dropServed(node, now);
        long ready = now;
        int capacity = arrivals[node] == null ? 0 : arrivals[node].length;
        for (int i = 0; i < sizes[node]; i++) {
            int at = (heads[node] + i) % capacity;
            if (arrivals[node][at] <= now) {
                ready = Math.max(ready, ends[node][at]);
            }
        }
        return ready;
    }

    private void dropServed(int node, long now) {
        long[] e = ends[node];
        while (sizes[node] > 0 && e[heads[node]] <= now) {
            heads[node] = (heads[node] + 1) % e.length;
            sizes[node]--;
        }
    }

    private void grow(int node) {
        int n = sizes[node];
        int capacity = arrivals[node].length;
        long[] a = new long[capacity * 2];
        long[] e = new long[capacity * 2];
        for (int i = 0; i < n; i++) {
            a[i] = arrivals[node][(heads[node] + i) % capacity];
            e[i] = ends[node][(heads[node] + i) % capacity];
        }
        arrivals[node] = a;
        ends[node] = e;
        heads[node] = 0;
    }
}
