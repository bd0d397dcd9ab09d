package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.client.KeepAlive;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value this client keeps alive ({@link RattanClient#putPermanent}, {@link RattanClient#putPermanentOwned}): it is
 * put again half its TTL after each put that succeeded, and again after a tenth of it (1 to 30 s) after one that
 * failed ({@link KeepAlive}), each put going through whichever of the client's gateways answers, as any call does; so
 * the value outlives the loss of a gateway. An owned value is signed anew for each put, with the same sequence and an expiry one TTL
 * ahead, which only its owner's key can do.
 *
 * <p>{@link #close()} stops the puts; the value then lives out its last TTL (remove it to end it sooner). The puts
 * stop by themselves when one is refused for good: the value was removed ({@link Status#FORBIDDEN}) or its owner
 * wrote a later sequence ({@link Status#CONFLICT}); {@link #stoppedBy()} and {@link #stopped()} then say why. Any
 * other failure is tried again. Closing the client stops them too. Thread-safe.
 */
public final class PermanentValue implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PermanentValue.class);

    private final Id key;
    private final Bytes valueHash;
    private final long ttlMillis;
    private final Supplier<CompletableFuture<PutResult>> put;
    private final ClientRuntime runtime;
    private final AtomicLong puts = new AtomicLong();
    private final CompletableFuture<RattanException> stopped = new CompletableFuture<>();
    private volatile boolean closed;
    private volatile ScheduledFuture<?> timer;

    private PermanentValue(Id key, Bytes valueHash, Duration ttl, Supplier<CompletableFuture<PutResult>> put,
                           ClientRuntime runtime) {
        this.key = key;
        this.valueHash = valueHash;
        this.ttlMillis = ttl.toMillis();
        this.put = put;
        this.runtime = runtime;
    }

    /** Makes the first put; the value is kept alive from the moment it succeeds. */
    static CompletableFuture<PermanentValue> start(Id key, Bytes valueHash, Duration ttl,
                                                   Supplier<CompletableFuture<PutResult>> put, ClientRuntime runtime) {
        PermanentValue p = new PermanentValue(key, valueHash, ttl, put, runtime);
        long started = System.nanoTime();
        return put.get().thenApply(first -> {
            p.succeeded(started);
            return p;
        });
    }

    /** The key the value lives under. */
    public Id key() {
        return key;
    }

    /** SHA-256 of the value. */
    public Bytes valueHash() {
        return valueHash;
    }

    /** Puts that succeeded so far, the first included. */
    public long puts() {
        return puts.get();
    }

    /** Whether it is still put again: neither it nor the client is closed, and no put was refused for good. */
    public boolean isKeptAlive() {
        return !closed && !stopped.isDone() && !runtime.isClosed();
    }

    /** The refusal that stopped the puts, if one did. */
    public Optional<RattanException> stoppedBy() {
        return Optional.ofNullable(stopped.getNow(null));
    }

    /**
     * Completes with the refusal that stops the puts for good, when one comes; never when the handle or the client is
     * closed. For whoever must know at once that the value is no longer kept.
     */
    public CompletableFuture<RattanException> stopped() {
        return stopped.copy();
    }

    /** Stops putting the value again; it expires at the end of its last TTL. Idempotent. */
    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    private void schedule(long delayMillis) {
        if (!isKeptAlive()) {
            return;
        }
        try {
            // The timer fires on the client's loop; the put (a hash, for an owned value a signature) runs off it.
            timer = runtime.raceLoop().schedule(() -> runtime.completeOff(this::putAgain), delayMillis,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The client is closed: nothing can be put any more.
            closed = true;
        }
    }

    /** A put that started at {@code startedNanos} succeeded: the next is due half a TTL after that start. */
    private void succeeded(long startedNanos) {
        puts.incrementAndGet();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
        schedule(Math.max(0, KeepAlive.afterSuccessMillis(ttlMillis) - tookMillis));
    }

    private void putAgain() {
        if (!isKeptAlive()) {
            return;
        }
        long started = System.nanoTime();
        put.get().whenComplete((ok, error) -> {
            if (error == null) {
                succeeded(started);
                return;
            }
            RattanException failure = Failures.asRattan(error, Op.PUT);
            if (KeepAlive.ends(failure.status())) {
                log.info("no longer keeping value {} under {} alive: {}", valueHash.toHex(), key.toHex(),
                        failure.getMessage());
                stopped.complete(failure);
            } else {
                log.debug("a put of permanent value {} under {} failed; retrying", valueHash.toHex(), key.toHex(),
                        failure);
                schedule(KeepAlive.afterFailureMillis(ttlMillis));
            }
        });
    }
}
