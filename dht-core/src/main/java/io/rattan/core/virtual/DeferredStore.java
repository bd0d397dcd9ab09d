package io.rattan.core.virtual;

import io.rattan.core.env.Scheduler;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A virtual node's store whose submitted work ({@link Store#submit}) runs a fixed delay of virtual time later, as a
 * task of the node's loop, with its completion right after: what a real node's store thread does, as seen from its
 * loop (the work happens later, and the node serves other input meanwhile), but deterministic. Tasks keep their order,
 * since the scheduler orders equal times by sequence number. Every other call goes straight to the store it wraps.
 * Single-threaded, like the world.
 */
final class DeferredStore extends ForwardingStore {

    private final Scheduler loop;
    private final long delayNanos;

    DeferredStore(Store store, Scheduler loop, long delayNanos) {
        super(store);
        if (delayNanos < 1) {
            throw new IllegalArgumentException("delayNanos must be positive, got " + delayNanos);
        }
        this.loop = loop;
        this.delayNanos = delayNanos;
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        loop.schedule(delayNanos, () -> delegate.submit(work, done));
    }

}
