package io.rattan.node.gateway.permanent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.client.KeepAlive;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.node.gateway.GatewayBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values an HTTP gateway keeps alive ({@code POST /v1/keys/{key}?permanent=true}): each is put again through the
 * node, as a client's put, when {@link KeepAlive} says, until a remove opens it. A remove through this gateway drops it at once; one through another gateway leaves a
 * tombstone at the replicas, which refuses the next put ({@code FORBIDDEN}), and the value is dropped then. The list
 * is kept on disk ({@link PermanentList}): a restarted gateway puts every value again at once and goes on. A gateway
 * gone for good leaves its values to expire at their TTL.
 *
 * <p>All state lives on one thread of its own; the node's loop only sees puts. At most {@link #IN_FLIGHT_MAX} puts
 * are out at once, so that a restart with a long list does not flood the node.
 */
public final class PermanentValues implements AutoCloseable {

    /** The most values one gateway keeps alive. */
    public static final int VALUES_MAX = 10_000;
    /**
     * The most puts per second the kept values may cost the gateway together (a value of TTL t costs 2/t): a list of
     * short TTLs is refused before it can turn one client's puts into a flood.
     */
    public static final double PUTS_PER_SECOND_MAX = 100;
    static final int IN_FLIGHT_MAX = 32;
    private static final Logger log = LoggerFactory.getLogger(PermanentValues.class);

    private final GatewayBackend backend;
    private final PermanentList list;
    private final String name;
    private final ScheduledExecutorService thread;
    // Owned by the thread: the values kept, by file name, and those due for a put.
    private final Map<String, Kept> kept = new HashMap<>();
    private final ArrayDeque<Kept> due = new ArrayDeque<>();
    private int inFlight;
    private volatile int count;
    private volatile double putsPerSecond;
    private final Counter puts;
    private final Counter failedPuts;
    private final Counter refusedPuts;
    private final Counter dropped;

    /** One kept value and its pending timer; replaced, not mutated, when the same value is kept again. */
    private static final class Kept {
        final KeptValue value;
        final String file;
        ScheduledFuture<?> timer;
        long sentAtNanos;

        Kept(KeptValue value) {
            this.value = value;
            this.file = value.fileName();
        }
    }

    private PermanentValues(GatewayBackend backend, Path dir, MeterRegistry registry, String name) {
        this.backend = backend;
        this.list = new PermanentList(dir);
        this.name = name;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "rattan-permanent-" + name);
            t.setDaemon(true);
            return t;
        });
        // On close, queued keeps and cancels still answer; the next puts, hours ahead maybe, are dropped.
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
        this.thread = executor;
        Gauge.builder("rattan.gateway.permanent.values", this, p -> p.count)
                .description("Values this gateway keeps alive (?permanent=true)").register(registry);
        this.puts = Counter.builder("rattan.gateway.permanent.puts").tag("outcome", "ok")
                .description("Puts of permanent values made by this gateway").register(registry);
        this.failedPuts = Counter.builder("rattan.gateway.permanent.puts").tag("outcome", "failed")
                .description("Puts of permanent values made by this gateway").register(registry);
        this.refusedPuts = Counter.builder("rattan.gateway.permanent.puts").tag("outcome", "refused")
                .description("Puts of permanent values made by this gateway").register(registry);
        this.dropped = Counter.builder("rattan.gateway.permanent.dropped")
                .description("Permanent values no longer kept: removed, or a put of them refused").register(registry);
    }

    /**
     * Opens the list kept in {@code dir} and starts putting every value in it again at once (a gateway that was down
     * does not know which of them are still alive).
     *
     * @throws IOException when the directory cannot be read
     */
    public static PermanentValues open(GatewayBackend backend, Path dir, MeterRegistry registry, String name)
            throws IOException {
        PermanentValues p = new PermanentValues(backend, dir, registry, name);
        var loaded = p.list.load(VALUES_MAX);
        if (!loaded.isEmpty()) {
            log.info("node {}: keeping {} permanent values from {}", name, loaded.size(), dir);
        }
        p.thread.execute(() -> loaded.forEach(v -> p.track(new Kept(v), 0)));
        return p;
    }

    /** Values kept now. */
    public int count() {
        return count;
    }

    /**
     * Whether one more value, of TTL {@code ttlSeconds}, may be kept: within {@link #VALUES_MAX} values and
     * {@link #PUTS_PER_SECOND_MAX}. {@link #keep} checks again.
     */
    public boolean hasRoom(int ttlSeconds) {
        return count < VALUES_MAX && putsPerSecond + cost(ttlSeconds) <= PUTS_PER_SECOND_MAX;
    }

    /**
     * Keeps {@code value} alive from now on, written to the list first; the put that stored it just succeeded, so
     * the next is due after half its TTL. The same value kept again (with the same secret) takes the new TTL.
     *
     * @return completes once it is on disk; fails with {@link ListFull} when the list is full, with
     *         {@link KeptUnderAnotherSecret} when this gateway keeps the same bytes under another secret, or with the
     *         {@link IOException} (wrapped in an {@link UncheckedIOException}) of a write that failed
     */
    public CompletableFuture<Void> keep(Id key, Bytes value, int ttlSeconds, Bytes binding) {
        return onThread(() -> {
            Kept old = kept.get(KeptValue.fileName(key, value.sha256()));
            if (old != null && !old.value.binding().equals(binding)) {
                // The list keeps one binding of a key's bytes: the put under another secret is stored (its own
                // record at the replicas) but not kept, so it can neither end this one nor be kept past its remove.
                throw new KeptUnderAnotherSecret();
            }
            double more = cost(ttlSeconds) - (old == null ? 0 : cost(old.value.ttlSeconds()));
            if (old == null && kept.size() >= VALUES_MAX || putsPerSecond + more > PUTS_PER_SECOND_MAX) {
                throw new ListFull();
            }
            Kept k = new Kept(new KeptValue(key, value, ttlSeconds, binding));
            write(k.value);
            track(k, halfTtlMillis(k.value));
            return null;
        });
    }

    /**
     * Stops keeping the value {@code valueHash} under {@code key} if {@code secret} (what a remove sends: the value's
     * proof, or the secret itself for a value bound before proofs) opens its binding.
     *
     * @return completes with whether a value was dropped
     */
    public CompletableFuture<Boolean> cancel(Id key, Bytes valueHash, Bytes secret) {
        return onThread(() -> {
            Kept k = kept.get(KeptValue.fileName(key, valueHash));
            if (k == null || !SecretBinding.opens(secret, key, valueHash, k.value.binding())) {
                return false;
            }
            drop(k, "removed through this gateway");
            return true;
        });
    }

    /** Stops putting; the list stays on disk for the next start. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(2, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Thrown by {@link #keep} when {@link #VALUES_MAX} values, or {@link #PUTS_PER_SECOND_MAX}, are reached. */
    public static final class ListFull extends RuntimeException {
        ListFull() {
            super("this gateway keeps at most " + VALUES_MAX + " permanent values, costing at most "
                    + (int) PUTS_PER_SECOND_MAX + " puts per second together (a value of TTL t costs 2/t)");
        }
    }

    /** Thrown by {@link #keep} when this gateway keeps the same bytes under the same key with another secret. */
    public static final class KeptUnderAnotherSecret extends RuntimeException {
        KeptUnderAnotherSecret() {
            super("this gateway keeps these bytes under this key alive already, with another secret");
        }
    }

    /** Runs {@code task} on the list's thread; fails at once once the list is closed. */
    private <T> CompletableFuture<T> onThread(Supplier<T> task) {
        try {
            return CompletableFuture.supplyAsync(task, thread);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("the gateway is stopping", e));
        }
    }

    /** Hands a completion to the list's thread; once the list is closed there is nothing left to do with it. */
    private void later(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("node {}: permanent values closed; a put's answer is ignored", name);
        }
    }

    private void track(Kept k, long delayMillis) {
        Kept old = kept.put(k.file, k);
        if (old != null && old.timer != null) {
            old.timer.cancel(false);
        }
        count = kept.size();
        putsPerSecond += cost(k.value.ttlSeconds()) - (old == null ? 0 : cost(old.value.ttlSeconds()));
        schedule(k, delayMillis);
    }

    private void schedule(Kept k, long delayMillis) {
        k.timer = thread.schedule(() -> {
            if (kept.get(k.file) == k) {
                due.add(k);
                pump();
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void pump() {
        while (inFlight < IN_FLIGHT_MAX && !due.isEmpty()) {
            Kept k = due.poll();
            if (kept.get(k.file) != k) {
                continue;
            }
            inFlight++;
            k.sentAtNanos = System.nanoTime();
            KeptValue v = k.value;
            CompletableFuture<Message> reply;
            try {
                reply = backend.request(new ClientPut(v.key(), v.value(), v.ttlSeconds(), v.binding()));
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            reply.whenCompleteAsync((m, error) -> {
                inFlight--;
                answered(k, m, error);
                pump();
            }, this::later);
        }
    }

    private void answered(Kept k, Message reply, Throwable error) {
        Status status = error != null ? Status.UNAVAILABLE
                : reply instanceof PutReply put ? put.status()
                : reply instanceof ErrorReply e ? e.status() : Status.INTERNAL;
        if (kept.get(k.file) != k) {
            return;
        }
        if (status == Status.OK) {
            puts.increment();
            // Counted from when the put left, so that a slow answer does not eat into the half TTL left.
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - k.sentAtNanos);
            schedule(k, Math.max(0, halfTtlMillis(k.value) - tookMillis));
        } else if (KeepAlive.ends(status)) {
            refusedPuts.increment();
            drop(k, "a put of it was refused (" + status + ")");
        } else {
            failedPuts.increment();
            log.debug("node {}: a put of permanent value {} under {} failed ({}); retrying", name,
                    k.value.valueHash().toHex(), k.value.key().toHex(), error != null ? error.toString() : status);
            schedule(k, retryMillis(k.value));
        }
    }

    private void drop(Kept k, String why) {
        kept.remove(k.file);
        count = kept.size();
        putsPerSecond -= cost(k.value.ttlSeconds());
        if (k.timer != null) {
            k.timer.cancel(false);
        }
        dropped.increment();
        log.info("node {}: no longer keeping value {} under {}: {}", name, k.value.valueHash().toHex(),
                k.value.key().toHex(), why);
        try {
            list.delete(k.value);
        } catch (IOException e) {
            // The next start puts it again; the tombstone refuses that put and the file goes then.
            log.warn("node {}: cannot delete permanent value file {}", name, k.file, e);
        }
    }

    private void write(KeptValue v) {
        try {
            list.write(v);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the permanent value: " + e.getMessage(), e);
        }
    }

    /** Puts per second a value of this TTL costs its gateway. */
    private static double cost(int ttlSeconds) {
        return 2.0 / ttlSeconds;
    }

    private static long halfTtlMillis(KeptValue v) {
        return KeepAlive.afterSuccessMillis(v.ttlSeconds() * 1000L);
    }

    private static long retryMillis(KeptValue v) {
        return KeepAlive.afterFailureMillis(v.ttlSeconds() * 1000L);
    }
}
