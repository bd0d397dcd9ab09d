package io.rattan.client;

import io.rattan.core.client.KeepAlive;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Status;
import io.rattan.core.util.Bytes;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
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
 * stop by themselves when one is refused for good: the value was removed ({@link Status#FORBIDDEN}), its owner wrote
 * a later sequence ({@link Status#CONFLICT}), or the gateways' limits changed ({@link Status#BAD_REQUEST},
 * {@link Status#TOO_LARGE}); {@link #stoppedBy()} then says why. Closing the client stops them too. Thread-safe.
 */
public final class PermanentValue implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PermanentValue.class);

    private final Id key;
    private final Bytes valueHash;
    private final long ttlMillis;
    private final Supplier<CompletableFuture<PutResult>> put;
    private final ScheduledExecutorService timers;
    private final AtomicLong puts = new AtomicLong();
    private volatile boolean closed;
    private volatile RattanException stoppedBy;
    private volatile ScheduledFuture<?> timer;

    private PermanentValue(Id key, Bytes valueHash, Duration ttl, Supplier<CompletableFuture<PutResult>> put,
                           ScheduledExecutorService timers) {
        this.key = key;
        this.valueHash = valueHash;
        this.ttlMillis = ttl.toMillis();
        this.put = put;
        this.timers = timers;
    }

    /** Makes the first put; the value is kept alive from the moment it succeeds. */
    static CompletableFuture<PermanentValue> start(Id key, Bytes valueHash, Duration ttl,
                                                   Supplier<CompletableFuture<PutResult>> put,
                                                   ScheduledExecutorService timers) {
        PermanentValue p = new PermanentValue(key, valueHash, ttl, put, timers);
        return put.get().thenApply(first -> {
            p.puts.incrementAndGet();
            p.schedule(KeepAlive.afterSuccessMillis(p.ttlMillis));
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

    /** Whether it is still put again: not closed, and no put was refused for good. */
    public boolean isKeptAlive() {
        return !closed && stoppedBy == null;
    }

    /** The refusal that stopped the puts, if one did. */
    public Optional<RattanException> stoppedBy() {
        return Optional.ofNullable(stoppedBy);
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
            timer = timers.schedule(this::putAgain, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The client is closed: nothing can be put any more.
            closed = true;
        }
    }

    private void putAgain() {
        if (!isKeptAlive()) {
            return;
        }
        put.get().whenComplete((ok, error) -> {
            if (error == null) {
                puts.incrementAndGet();
                schedule(KeepAlive.afterSuccessMillis(ttlMillis));
                return;
            }
            RattanException failure = Failures.asRattan(error, Op.PUT);
            if (KeepAlive.ends(failure.status())) {
                stoppedBy = failure;
                log.info("no longer keeping value {} under {} alive: {}", valueHash.toHex(), key.toHex(),
                        failure.getMessage());
            } else {
                log.debug("a put of permanent value {} under {} failed; retrying", valueHash.toHex(), key.toHex(),
                        failure);
                schedule(KeepAlive.afterFailureMillis(ttlMillis));
            }
        });
    }
}
