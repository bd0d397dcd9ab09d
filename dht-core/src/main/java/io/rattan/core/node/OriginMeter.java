package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Clock;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.util.ExpiringBytes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this node, as a key's root, has taken from each put's origin ({@link OriginLimits}): a token bucket of puts
 * (one second's worth, full at first) and the live value bytes of its puts ({@link ExpiringBytes}). At most
 * {@link #ORIGINS_MAX} origins are remembered, the least recently heard forgotten first, which errs in that origin's
 * favour, never against another. A put its gateway sends again (the same request, key, bytes and expiry: a second
 * try after a silent first one) takes another token but adds no bytes, if it comes within the last
 * {@link #COUNTED_MAX} puts this root counted; later, it is counted twice, which errs against its origin only. Owned
 * by the node's loop.
 */
final class OriginMeter {

    /** Most origins remembered at once. */
    static final int ORIGINS_MAX = 4_096;
    /** Most puts remembered as counted, so that a second try of one adds no bytes. */
    static final int COUNTED_MAX = 4_096;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final OriginLimits limits;
    private final Clock clock;
    private final Map<Id, Account> accounts = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Id, Account> eldest) {
            return size() > ORIGINS_MAX;
        }
    };

    private final Map<Counted, Boolean> counted = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Counted, Boolean> eldest) {
            return size() > COUNTED_MAX;
        }
    };

    /** A put counted here: what its gateway's second try carries the same (its value by SHA-256). */
    private record Counted(Id origin, long requestId, Id key, Bytes valueHash, long expiresAtMillis) {
    }

    OriginMeter(OriginLimits limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
    }

    /**
     * Null when this root takes {@code p}: it came straight from its origin ({@code fromOrigin}: over the connection
     * the origin proved its id on, or from this node's own gateway) or its origin's signature holds
     * ({@link PutRequest#originProven}; unless proofs are not required), and it fits the origin's rate and share.
     * This node's own puts (it is their gateway, which counted them against its clients) count against nothing here.
     */
    ErrorReply check(NodeContext ctx, PutRequest p, boolean fromOrigin) {
        // A node held at an older version (a rolling upgrade) requires no proofs, as that release did not.
        boolean required = limits.proofsRequired()
                && ctx.config().protocolVersion() >= MessageCodec.VERSION_ORIGIN_PROOFS;
        if (required && !fromOrigin && !p.originProven(ctx.config().namespace())) {
            return new ErrorReply(Status.FORBIDDEN, "the put's origin " + p.origin().id().shortHex()
                    + " is not proven by its signature");
        }
        if (p.origin().id().equals(ctx.self().id())) {
            return null;
        }
        return admit(p);
    }

    /**
     * Counts {@code p} against its origin: null when it fits, else the refusal ({@code RATE_LIMITED} or
     * {@code QUOTA_EXCEEDED}, with how long to wait). A second try of a put counted here takes a token only.
     */
    private ErrorReply admit(PutRequest p) {
        Id origin = p.origin().id();
        long bytes = p.value().length();
        long expiresAtMillis = p.expiresAtMillis();
        if (limits.putsPerSecond() == OriginLimits.OFF && limits.storageBytes() == OriginLimits.OFF) {
            return null;
        }
        long nowNanos = clock.nanoTime();
        Account account = accounts.computeIfAbsent(origin, o -> new Account(limits.putsPerSecond(), nowNanos));
        if (limits.putsPerSecond() != OriginLimits.OFF && !account.takeToken(limits.putsPerSecond(), nowNanos)) {
            return new ErrorReply(Status.RATE_LIMITED, "over " + limits.putsPerSecond() + " puts a second from "
                    + "origin " + origin.shortHex() + " at this root", 1000 / limits.putsPerSecond() + 1);
        }
        if (limits.storageBytes() == OriginLimits.OFF) {
            return null;
        }
        Counted put = new Counted(origin, p.originRequestId(), p.key(), p.value().sha256(), expiresAtMillis);
        if (counted.containsKey(put)) {
            return null;
        }
        long nowMillis = clock.epochMillis();
        long bucket = ExpiringBytes.bucketOf(Math.max(expiresAtMillis, nowMillis + 1), nowMillis);
        if (!account.bytes.tryAdd(bucket, bytes, limits.storageBytes(), nowMillis)) {
            return new ErrorReply(Status.QUOTA_EXCEEDED, "origin " + origin.shortHex() + " holds its share of "
                    + limits.storageBytes() + " bytes at this root",
                    (int) Math.min(Integer.MAX_VALUE, account.bytes.retryAfterMillis(nowMillis)));
        }
        counted.put(put, Boolean.TRUE);
        return null;
    }

    /** The live value bytes counted against {@code origin} now (tests, metrics). */
    long bytesOf(Id origin) {
        Account account = accounts.get(origin);
        return account == null ? 0 : account.bytes.total(clock.epochMillis());
    }

    private static final class Account {
        final ExpiringBytes bytes = new ExpiringBytes();
        double tokens;
        long refilledNanos;

        Account(int perSecond, long nowNanos) {
            this.tokens = Math.max(0, perSecond);
            this.refilledNanos = nowNanos;
        }

        boolean takeToken(int perSecond, long nowNanos) {
            tokens = Math.min(perSecond, tokens + (nowNanos - refilledNanos) * (double) perSecond / NANOS_PER_SECOND);
            refilledNanos = nowNanos;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }
}
