package io.rattan.core.util;

import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes held until they expire, as a share of storage counts them (a client's at a gateway, an origin's at a root):
 * in expiry buckets a minute wide for expiries up to an hour away, an hour wide beyond, so that the state is at most a
 * few hundred numbers however many values it counts, and a value counts until the end of its bucket, never less than
 * its life. Not thread-safe: its owner guards it.
 */
public final class ExpiringBytes {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 3_600_000;

    private final TreeMap<Long, Long> buckets = new TreeMap<>();
    private long total;

    /** The end of the bucket that a value expiring at {@code expiresAtMillis} is counted in, at {@code nowMillis}. */
    public static long bucketOf(long expiresAtMillis, long nowMillis) {
        long width = expiresAtMillis - nowMillis <= HOUR ? MINUTE : HOUR;
        return (expiresAtMillis + width - 1) / width * width;
    }

    /** Adds {@code bytes} to {@code bucket} if the total stays within {@code capBytes}; whether it did. */
    public boolean tryAdd(long bucket, long bytes, long capBytes, long nowMillis) {
        expire(nowMillis);
        if (total + bytes > capBytes) {
            return false;
        }
        buckets.merge(bucket, bytes, Long::sum);
        total += bytes;
        return true;
    }

    /** Takes back {@code bytes} that were added to {@code bucket} (a put that failed), if it still holds them. */
    public void remove(long bucket, long bytes) {
        Long held = buckets.get(bucket);
        if (held == null) {
            return;
        }
        long left = held - bytes;
        if (left <= 0) {
            buckets.remove(bucket);
        } else {
            buckets.put(bucket, left);
        }
        total -= Math.min(held, bytes);
    }

    /** The bytes held at {@code nowMillis}. */
    public long total(long nowMillis) {
        expire(nowMillis);
        return total;
    }

    /** How long until some of the bytes expire: at least a second. */
    public long retryAfterMillis(long nowMillis) {
        long firstEnd = buckets.isEmpty() ? nowMillis + MINUTE : buckets.firstKey();
        return Math.max(1000, firstEnd - nowMillis);
    }

    private void expire(long nowMillis) {
        while (!buckets.isEmpty() && buckets.firstKey() <= nowMillis) {
            Map.Entry<Long, Long> e = buckets.pollFirstEntry();
            total -= e.getValue();
        }
    }
}
