package io.rattan.bench.harness;

import io.rattan.api.Id;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The keys and values a run puts and reads back: {@code keys} keys, each with {@code valuesPerKey} values of
 * {@code valueBytes} bytes, put with a TTL. A value's bytes are a function of the run id, key and value index,
 * so every get can be checked byte for byte without keeping the values.
 *
 * <p>Knows when each key was last put successfully (the time the put was sent, which is no later than when the
 * nodes started its TTL), and so which values must be live. Thread-safe.
 */
final class Population {

    /** A value this close to its expiry may be present or absent: the nodes' clocks and TTL rounding differ. */
    static final Duration EXPIRY_SLACK = Duration.ofSeconds(5);

    private final String runId;
    private final int valuesPerKey;
    private final int valueBytes;
    private final Duration ttl;
    private final Id[] ids;
    /** Per value (key * valuesPerKey + v), System.nanoTime() when its last successful put was sent, or MIN_VALUE. */
    private final AtomicLongArray lastPutNanos;

    Population(String runId, int keys, int valuesPerKey, int valueBytes, Duration ttl) {
        if (keys < 1 || valuesPerKey < 1 || valueBytes < 24) {
            throw new IllegalArgumentException("need at least 1 key, 1 value per key and 24-byte values, got " + keys
                    + ", " + valuesPerKey + ", " + valueBytes);
        }
        if (ttl.compareTo(EXPIRY_SLACK.multipliedBy(4)) < 0) {
            throw new IllegalArgumentException("--ttl must be at least " + EXPIRY_SLACK.multipliedBy(4).toSeconds()
                    + " s, so that values can be kept alive; got " + ttl.toSeconds() + " s");
        }
        this.runId = runId;
        this.valuesPerKey = valuesPerKey;
        this.valueBytes = valueBytes;
        this.ttl = ttl;
        this.ids = new Id[keys];
        for (int k = 0; k < keys; k++) {
            ids[k] = Id.ofName("rattan-bench/" + runId + "/key-" + k);
        }
        this.lastPutNanos = new AtomicLongArray(keys * valuesPerKey);
        for (int i = 0; i < lastPutNanos.length(); i++) {
            lastPutNanos.set(i, Long.MIN_VALUE);
        }
    }

    Duration ttl() {
        return ttl;
    }

    Id id(int key) {
        return ids[key];
    }

    /** A key nobody put: a get of it must come back empty. */
    Id absentId(long n) {
        return Id.ofName("rattan-bench/" + runId + "/absent-" + n);
    }

    /** Value {@code v} of key {@code k}: a readable prefix naming both, then seeded pseudo-random bytes. */
    byte[] value(int k, int v) {
        byte[] b = new byte[valueBytes];
        byte[] prefix = (runId + "/" + k + "/" + v + "/").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(prefix, 0, b, 0, Math.min(prefix.length, b.length));
        SplittableRandom r = new SplittableRandom(((long) k << 20) ^ v ^ runId.hashCode());
        for (int i = prefix.length; i < b.length; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return b;
    }

    void putDone(int key, int value, long sentNanos) {
        lastPutNanos.accumulateAndGet(slot(key, value), sentNanos, Math::max);
    }

    /** Whether every value of key {@code key} has been put successfully at least once. */
    boolean everPut(int key) {
        for (int v = 0; v < valuesPerKey; v++) {
            if (lastPutNanos.get(slot(key, v)) == Long.MIN_VALUE) {
                return false;
            }
        }
        return true;
    }

    /** Whether value {@code v} of key {@code k} is due for a re-put: half its TTL has passed since its last put. */
    boolean due(int key, int value, long nowNanos) {
        long last = lastPutNanos.get(slot(key, value));
        return last != Long.MIN_VALUE && nowNanos - last >= ttl.toNanos() / 2;
    }

    /**
     * Checks a get of key {@code key} (−1: an absent key) that started at {@code startNanos}: true when every value
     * returned is one of the key's, at most once, every value that must be live is there, and none that must have
     * expired is.
     */
    boolean matches(int key, long startNanos, List<byte[]> got) {
        if (key < 0) {
            return got.isEmpty();
        }
        boolean[] seen = new boolean[valuesPerKey];
        for (byte[] g : got) {
            int v = indexOf(key, g);
            if (v < 0 || seen[v]) {
                return false;
            }
            seen[v] = true;
        }
        for (int v = 0; v < valuesPerKey; v++) {
            long last = lastPutNanos.get(slot(key, v));
            boolean mustBeLive = last != Long.MIN_VALUE
                    && startNanos - last < ttl.toNanos() - EXPIRY_SLACK.toNanos();
            boolean mayBeLive = last != Long.MIN_VALUE
                    && startNanos - last < ttl.toNanos() + EXPIRY_SLACK.toNanos();
            if (mustBeLive && !seen[v] || !mayBeLive && seen[v]) {
                return false;
            }
        }
        return true;
    }

    private int slot(int key, int value) {
        return key * valuesPerKey + value;
    }

    private int indexOf(int key, byte[] got) {
        // The value's own prefix names it: one value to regenerate and compare, not every value of the key (this
        // runs on the client's I/O threads, inside the latency being measured).
        int named = namedIndex(key, got);
        if (named >= 0) {
            return Arrays.equals(value(key, named), got) ? named : -1;
        }
        for (int v = 0; v < valuesPerKey; v++) {
            if (Arrays.equals(value(key, v), got)) {
                return v;
            }
        }
        return -1;
    }

    /** The value index {@code got}'s prefix "runId/key/v/" names, or -1 when it names none (or is cut short). */
    private int namedIndex(int key, byte[] got) {
        byte[] head = (runId + "/" + key + "/").getBytes(StandardCharsets.US_ASCII);
        if (got.length <= head.length || !Arrays.equals(got, 0, head.length, head, 0, head.length)) {
            return -1;
        }
        int v = 0;
        for (int i = head.length; i < got.length && i < head.length + 10; i++) {
            if (got[i] == '/') {
                return i > head.length && v < valuesPerKey ? v : -1;
            }
            if (got[i] < '0' || got[i] > '9') {
                return -1;
            }
            v = v * 10 + (got[i] - '0');
        }
        return -1;
    }
}
