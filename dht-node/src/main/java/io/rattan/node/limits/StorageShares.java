package io.rattan.node.limits;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.rattan.core.util.ExpiringBytes;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;

/**
 * Bamboo's fair share, simply: each client (a source IP, or a bearer token: {@link ClientId}) may keep at most {@code shareBytes} of value bytes alive
 * through this gateway. A put reserves its value's bytes until its expiry; a put that fails gives them back. The
 * bytes are held in expiry buckets (a minute wide for TTLs up to an hour, an hour wide beyond), so a client's state is
 * at most a few hundred numbers whatever it puts, and a value counts until the end of its bucket: never less than
 * its life ({@link ExpiringBytes}). A remove does not give bytes back (the remove names only the value's hash),
 * nor does a re-put of the same value refresh instead of charging again: both err against the client, never against
 * other clients.
 *
 * <p>At most {@link KeyedRateLimiter#KEYS_MAX} clients are remembered; one is forgotten after {@code ttlMax} without
 * a put, when all it put has expired. Thread-safe.
 */
public final class StorageShares {

    private final long shareBytes;
    private final LongSupplier clockMillis;
    private final Cache<ClientId, ExpiringBytes> shares;

    /**
     * @param shareBytes  live value bytes per client, or {@link Limits#OFF}
     * @param ttlMax      the longest TTL a put may carry
     * @param clockMillis the wall clock, epoch milliseconds
     */
    public StorageShares(long shareBytes, Duration ttlMax, LongSupplier clockMillis) {
        this.shareBytes = shareBytes;
        this.clockMillis = clockMillis;
        this.shares = CacheBuilder.newBuilder()
                .maximumSize(KeyedRateLimiter.KEYS_MAX)
                .expireAfterAccess(ttlMax.plusHours(1))
                .build();
    }

    /** A put's claim on its client's share; give it back with {@link #release} if the put fails. */
    public record Reservation(ClientId client, long bucketEndMillis, long bytes) {
    }

    /** What {@link #reserve} decided: a reservation, or the wait until some of the client's bytes expire. */
    public record Decision(Reservation reservation, long retryAfterMillis) {
        public boolean admitted() {
            return reservation != null;
        }
    }

    /** Reserves {@code bytes} of {@code client}'s share until {@code ttlSeconds} from now, if they fit. */
    public Decision reserve(ClientId client, long bytes, int ttlSeconds) {
        long now = clockMillis.getAsLong();
        long bucket = ExpiringBytes.bucketOf(now + Math.max(1, ttlSeconds) * 1000L, now);
        if (shareBytes == Limits.OFF) {
            return new Decision(new Reservation(client, bucket, 0), 0);
        }
        ExpiringBytes share;
        try {
            share = shares.get(client, ExpiringBytes::new);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        synchronized (share) {
            if (!share.tryAdd(bucket, bytes, shareBytes, now)) {
                return new Decision(null, share.retryAfterMillis(now));
            }
        }
        return new Decision(new Reservation(client, bucket, bytes), 0);
    }

    /** Gives a failed put's bytes back. */
    public void release(Reservation r) {
        if (r.bytes() == 0) {
            return;
        }
        ExpiringBytes share = shares.getIfPresent(r.client());
        if (share == null) {
            return;
        }
        synchronized (share) {
            share.remove(r.bucketEndMillis(), r.bytes());
        }
    }

    /** Bytes {@code client} holds now. */
    public long used(ClientId client) {
        ExpiringBytes share = shares.getIfPresent(client);
        if (share == null) {
            return 0;
        }
        synchronized (share) {
            return share.total(clockMillis.getAsLong());
        }
    }
}
