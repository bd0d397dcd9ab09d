package io.rattan.core.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A {@link Store} that hands every call to another store; wrappers that change one thing (where work runs, when it
 * completes) extend it and override only that. Every method of {@link Store} is forwarded here, so that a method the
 * interface gains is not silently served by its default in a wrapper: a wrapper that fell back to the default
 * {@link Store#scanKey} read up to a page of other keys' records per get.
 */
public abstract class ForwardingStore implements Store {

    /** The store calls go to. */
    protected final Store delegate;

    protected ForwardingStore(Store delegate) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate is null");
        }
        this.delegate = delegate;
    }

    @Override
    public void write(StoredRecord record) {
        delegate.write(record);
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes slot) {
        return delegate.read(key, slot);
    }

    @Override
    public List<StoredRecord> scan(Cursor from, int limit) {
        return delegate.scan(from, limit);
    }

    @Override
    public List<StoredRecord> scanKey(Cursor from, int limit) {
        return delegate.scanKey(from, limit);
    }

    @Override
    public int purgeExpired(int limit) {
        return delegate.purgeExpired(limit);
    }

    @Override
    public long size() {
        return delegate.size();
    }

    @Override
    public long clockMark() {
        return delegate.clockMark();
    }

    @Override
    public void clockMark(long epochMillis) {
        delegate.clockMark(epochMillis);
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        delegate.submit(work, done);
    }

    @Override
    public void whenDurable(Runnable action) {
        delegate.whenDurable(action);
    }

    @Override
    public boolean healthy() {
        return delegate.healthy();
    }
}
