package io.rattan.bench.harness;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * The puts of {@code rattan bench watch} and when each watch heard them. A value names its put ({@code w<n>;}, then
 * padding), so that an event finds its put whatever gateway it came through. Latency is taken from the put's
 * acknowledgement (an event may come before it: a replica pushes when it stores, before the put's quorum answers,
 * and such an event counts as 0), and, apart, from the put's start. Thread-safe.
 */
final class WatchLatency {

    /** One measured put: when it started and was acknowledged, and when each of its key's watches heard it. */
    private static final class Put {
        final long startNanos;
        volatile long ackNanos = -1;
        final AtomicLongArray heardNanos;
        final AtomicLong heard = new AtomicLong();

        Put(long startNanos, int watchers) {
            this.startNanos = startNanos;
            this.heardNanos = new AtomicLongArray(watchers);
        }
    }

    private final ConcurrentHashMap<Long, Put> puts = new ConcurrentHashMap<>();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong unknown = new AtomicLong();

    /** A value of {@code bytes} bytes that names put {@code n}. */
    static byte[] value(long n, int bytes) {
        byte[] v = new byte[bytes];
        Arrays.fill(v, (byte) 'x');
        byte[] id = ("w" + n + ";").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(id, 0, v, 0, Math.min(id.length, bytes));
        return v;
    }

    /** Put {@code n} starts now; {@code watchers} watches will hear it. */
    void started(long n, int watchers) {
        puts.put(n, new Put(System.nanoTime(), watchers));
    }

    void acknowledged(long n) {
        Put p = puts.get(n);
        if (p != null) {
            p.ackNanos = System.nanoTime();
        }
    }

    /** Watch {@code watcher} (its index among its key's watches) heard {@code value}. */
    void heard(int watcher, byte[] value) {
        long now = System.nanoTime();
        Put p = puts.get(number(value));
        if (p == null) {
            unknown.incrementAndGet();
        } else if (p.heardNanos.compareAndSet(watcher, 0, now)) {
            p.heard.incrementAndGet();
        } else {
            duplicates.incrementAndGet();
        }
    }

    private static long number(byte[] value) {
        int end = 1;
        while (end < value.length && value[end] != ';') {
            end++;
        }
        if (value.length < 2 || value[0] != 'w' || end >= value.length) {
            return -1;
        }
        try {
            return Long.parseLong(new String(value, 1, end - 1, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Every acknowledged put's events heard so far. */
    long heard() {
        return puts.values().stream().filter(p -> p.ackNanos >= 0).mapToLong(p -> p.heard.get()).sum();
    }

    /** What was measured, over the acknowledged puts: latencies from the acknowledgement and from the start. */
    Figures figures(int watchersPerKey) {
        Histogram fromAck = new Histogram(3);
        Histogram fromStart = new Histogram(3);
        long acked = 0;
        long beforeAck = 0;
        for (Put p : puts.values()) {
            if (p.ackNanos < 0) {
                continue;
            }
            acked++;
            for (int w = 0; w < p.heardNanos.length(); w++) {
                long at = p.heardNanos.get(w);
                if (at != 0) {
                    fromAck.recordValue(Math.max(0, at - p.ackNanos) / 1_000);
                    fromStart.recordValue(Math.max(0, at - p.startNanos) / 1_000);
                    beforeAck += at < p.ackNanos ? 1 : 0;
                }
            }
        }
        return new Figures(acked, acked * watchersPerKey, fromAck.getTotalCount(), beforeAck, duplicates.get(),
                unknown.get(), fromAck, fromStart);
    }

    /** Latencies in microseconds. */
    record Figures(long putsAcked, long eventsOwed, long eventsHeard, long heardBeforeAck, long duplicates,
                   long unknown, Histogram fromAck, Histogram fromStart) {

        double millis(Histogram h, double percentile) {
            return h.getValueAtPercentile(percentile) / 1000.0;
        }
    }
}
