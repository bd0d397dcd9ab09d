package io.rattan.node.limits;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * A token bucket per key (a source IP, a peer), held in a bounded Guava cache so that a stranger cycling through keys
 * cannot grow it: at most {@link #KEYS_MAX} keys, each dropped a minute after its last use. A bucket holds one
 * second's worth of tokens and starts full, so a new sender may burst that much and then {@code perSecond} on
 * average. (Guava's {@code RateLimiter} starts empty and would refuse a new peer's first burst, such as the frames
 * queued while its connection opened.) A dropped key starts again full, which errs in the sender's favour, never
 * against it. Thread-safe.
 *
 * @param <K> the key type
 */
public final class KeyedRateLimiter<K> {

    /** Most keys remembered at once. */
    public static final int KEYS_MAX = 65_536;

    private final double perSecond;
    private final Ticker ticker;
    private final Cache<K, Bucket> buckets;

    /** @param perSecond tokens per second per key, or {@link Limits#OFF} to allow everything */
    public KeyedRateLimiter(int perSecond) {
        this(perSecond, Ticker.systemTicker());
    }

    /** As above, on {@code ticker}'s time (tests, on a manual clock). */
    public KeyedRateLimiter(int perSecond, Ticker ticker) {
        this.perSecond = perSecond;
        this.ticker = ticker;
        this.buckets = CacheBuilder.newBuilder()
                .maximumSize(KEYS_MAX)
                .expireAfterAccess(Duration.ofMinutes(1))
                .ticker(ticker)
                .build();
    }

    /** Whether limiting is on. */
    public boolean isOn() {
        return perSecond > 0;
    }

    /** Takes one token for {@code key} if one is available now; never waits. */
    public boolean tryAcquire(K key) {
        if (!isOn()) {
            return true;
        }
        long now = ticker.read();
        Bucket bucket;
        try {
            bucket = buckets.get(key, () -> new Bucket(perSecond, now));
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return bucket.tryTake(perSecond, now);
    }

    /**
     * How long a refused sender should wait: the time one token takes to come back, but at least 100 ms, so that a
     * client that honours it does not spin.
     */
    public int retryAfterMillis() {
        return isOn() ? (int) Math.max(100, Math.ceil(1000 / perSecond)) : 0;
    }

    /** Keys remembered now (bounded by {@link #KEYS_MAX}). */
    public long size() {
        return buckets.size();
    }

    private static final class Bucket {
        private double tokens;
        private long lastNanos;

        Bucket(double capacity, long now) {
            this.tokens = capacity;
            this.lastNanos = now;
        }

        synchronized boolean tryTake(double perSecond, long now) {
            tokens = Math.min(perSecond, tokens + (now - lastNanos) * perSecond / 1e9);
            lastNanos = now;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }
}
