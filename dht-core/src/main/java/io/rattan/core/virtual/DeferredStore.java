package io.rattan.core.virtual;

import io.rattan.core.env.Scheduler;
import io.rattan.core.id.Id;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A virtual node's store whose submitted work ({@link Store#submit}) runs a fixed delay of virtual time later, as a
 * task of the node's loop, with its completion right after: what a real node's store thread does, as seen from its
 * loop (the work happens later, and the node serves other input meanwhile), but deterministic. Tasks keep their order,
 * since the scheduler orders equal times by sequence number. Every other call goes straight to the store it wraps.
 * Single-threaded, like the world.
 */
final class DeferredStore implements Store {

    private final Store store;
    private final Scheduler loop;
    private final long delayNanos;

    DeferredStore(Store store, Scheduler loop, long delayNanos) {
        if (delayNanos < 1) {
            throw new IllegalArgumentException("delayNanos must be positive, got " + delayNanos);
        }
        this.store = store;
        this.loop = loop;
        this.delayNanos = delayNanos;
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        loop.schedule(delayNanos, () -> store.submit(work, done));
    }

    @Override
    public void write(StoredRecord record) {
        store.write(record);
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes valueHash) {
        return store.read(key, valueHash);
    }

    @Override
    public List<StoredRecord> scan(Cursor from, int limit) {
        return store.scan(from, limit);
    }

    @Override
    public int purgeExpired(int limit) {
        return store.purgeExpired(limit);
    }

    @Override
    public long size() {
        return store.size();
    }

    @Override
    public long clockMark() {
        return store.clockMark();
    }

    @Override
    public void clockMark(long epochMillis) {
        store.clockMark(epochMillis);
    }

    @Override
    public void whenDurable(Runnable action) {
        store.whenDurable(action);
    }

    @Override
    public boolean healthy() {
        return store.healthy();
    }
}
