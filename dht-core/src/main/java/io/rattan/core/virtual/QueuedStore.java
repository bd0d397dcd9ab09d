package io.rattan.core.virtual;

import io.rattan.core.env.Scheduler;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A virtual node's store thread with a queue: submitted work ({@link Store#submit}) runs one task at a time, each
 * taking a fixed time, with at most {@code queueMax} waiting behind the one running, and work submitted to a full
 * queue fails at once with a {@link StoreException} ("store busy"), as the real node's {@code OffLoopStore} does.
 * Unlike {@link DeferredStore}, whose tasks overlap, work here costs the node time that others wait for, so a flood of
 * scans shows. Once {@linkplain #stop stopped} (its node crashed) it runs nothing more. Every other call goes straight
 * to the store it wraps. Single-threaded, like the world.
 */
final class QueuedStore extends ForwardingStore {

    private final Scheduler loop;
    private final VirtualScheduler clock;
    private final long taskNanos;
    private final int queueMax;
    private long freeAtNanos;
    // Tasks submitted and not yet run: the one running and those waiting.
    private int queued;
    private boolean stopped;

    QueuedStore(Store store, Scheduler loop, VirtualScheduler clock, long taskNanos, int queueMax) {
        super(store);
        if (taskNanos < 1 || queueMax < 1) {
            throw new IllegalArgumentException("taskNanos and queueMax must be positive, got " + taskNanos + " and "
                    + queueMax);
        }
        this.loop = loop;
        this.clock = clock;
        this.taskNanos = taskNanos;
        this.queueMax = queueMax;
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        if (queued > queueMax) {
            done.accept(null, new StoreException(StoreException.Kind.IO, "store busy: " + queueMax + " tasks queued",
                    null));
            return;
        }
        long now = clock.nanoTime();
        freeAtNanos = Math.max(now, freeAtNanos) + taskNanos;
        queued++;
        loop.schedule(freeAtNanos - now, () -> {
            queued--;
            if (!stopped) {
                delegate.submit(work, done);
            }
        });
    }

    /** The node crashed: work still queued is lost with its process, as a real store thread's is. */
    void stop() {
        stopped = true;
    }
}
