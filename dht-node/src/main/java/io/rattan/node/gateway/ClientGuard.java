package io.rattan.node.gateway;

import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.node.limits.ClientId;
import io.rattan.node.limits.KeyedRateLimiter;
import io.rattan.node.limits.Limits;
import io.rattan.node.limits.StorageShares;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The client limits both gateways of a node share, keyed by the client ({@link ClientId}: its bearer token where the
 * HTTP gateway requires one, else its source IP): one request rate over the binary
 * RPC and HTTP together, and one storage share ({@link StorageShares}). Refusals are typed
 * ({@link Status#RATE_LIMITED}, {@link Status#QUOTA_EXCEEDED}) and carry how long to wait. Thread-safe.
 */
public final class ClientGuard {

    private final int ratePerSecond;
    private final KeyedRateLimiter<ClientId> rates;
    private final StorageShares shares;
    private final LongSupplier clockMillis;
    private final LongAdder rateLimited = new LongAdder();
    private final LongAdder quotaExceeded = new LongAdder();

    /**
     * @param limits      the node's limits (the client rate and storage share are used)
     * @param ttlMax      the longest TTL a put may carry
     * @param clockMillis the wall clock, epoch milliseconds
     */
    public ClientGuard(Limits limits, Duration ttlMax, LongSupplier clockMillis) {
        this.ratePerSecond = limits.clientRequestsPerSecond();
        this.rates = new KeyedRateLimiter<>(ratePerSecond);
        this.shares = new StorageShares(limits.clientStorageBytes(), ttlMax, clockMillis);
        this.clockMillis = clockMillis;
    }

    /** A guard that limits nothing: for gateways built without a node's limits (tests, embedding). */
    public static ClientGuard none() {
        Limits off = Limits.defaults().withClientRequestsPerSecond(Limits.OFF).withClientStorageBytes(Limits.OFF);
        return new ClientGuard(off, Duration.ofDays(7), System::currentTimeMillis);
    }

    /** The client a connection's remote address stands for: its IP, or null when it has none (in-process). */
    public static InetAddress clientOf(java.net.SocketAddress remote) {
        return remote instanceof java.net.InetSocketAddress a ? a.getAddress() : null;
    }

    /** Null when {@code client} may make one more request now, else the refusal to answer with. */
    public ErrorReply admit(ClientId client) {
        if (rates.tryAcquire(client)) {
            return null;
        }
        rateLimited.increment();
        return new ErrorReply(Status.RATE_LIMITED, "over " + ratePerSecond + " requests per second from "
                + client + "; retry later",
                rates.retryAfterMillis());
    }

    /**
     * Sends {@code put} through {@code send} if its value fits in {@code client}'s share; otherwise answers
     * {@code QUOTA_EXCEEDED} at once. The value's bytes are held until its expiry unless the put fails.
     */
    public CompletableFuture<Message> put(ClientId client, ClientPut put,
                                          Supplier<CompletableFuture<Message>> send) {
        // An owned value has no TTL: it lives until its signed expiry.
        int ttlSeconds = put.stamp() == null ? put.ttlSeconds() : (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, (put.stamp().expiresAtMillis() - clockMillis.getAsLong() + 999) / 1000));
        StorageShares.Decision decision = shares.reserve(client, put.value().length(), ttlSeconds);
        if (!decision.admitted()) {
            quotaExceeded.increment();
            return CompletableFuture.completedFuture(new ErrorReply(Status.QUOTA_EXCEEDED,
                    client + " holds its whole storage share at this gateway ("
                            + shares.used(client) + " bytes of live values); retry when some expire",
                    (int) Math.min(Integer.MAX_VALUE, decision.retryAfterMillis())));
        }
        CompletableFuture<Message> reply;
        try {
            reply = send.get();
        } catch (RuntimeException e) {
            shares.release(decision.reservation());
            throw e;
        }
        return reply.whenComplete((r, failure) -> {
            if (!(r instanceof PutReply p) || p.status() != Status.OK) {
                shares.release(decision.reservation());
            }
        });
    }

    /** Requests refused for their rate so far. */
    public long rateLimited() {
        return rateLimited.sum();
    }

    /** Puts refused for their client's share so far. */
    public long quotaExceeded() {
        return quotaExceeded.sum();
    }
}
