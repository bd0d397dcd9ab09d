package io.rattan.node;

import io.rattan.core.id.Id;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A test hook around a node's store ({@link RattanNode#start(NodeOptions, java.util.function.UnaryOperator)}): while
 * the latch is closed, every task the node submits to its store ({@link Store#submit}) waits on the store's thread
 * before it runs, as behind a RocksDB write stall or a scan of millions of records. Other calls pass straight through.
 */
final class LatchedStore implements Store {

    private final Store store;
    private final Object lock = new Object();
    private final AtomicInteger waiting = new AtomicInteger();
    private boolean closed;

    LatchedStore(Store store) {
        this.store = store;
    }

    /** From now on, store tasks wait until {@link #open}. */
    void close() {
        synchronized (lock) {
            closed = true;
        }
    }

    /** Lets every waiting and later task run. */
    void open() {
        synchronized (lock) {
            closed = false;
            lock.notifyAll();
        }
    }

    /** Tasks waiting on the latch now (at most one: the store has one thread). */
    int waiting() {
        return waiting.get();
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        store.submit(() -> {
            awaitOpen();
            return work.get();
        }, done);
    }

    private void awaitOpen() {
        synchronized (lock) {
            if (!closed) {
                return;
            }
            waiting.incrementAndGet();
            try {
                while (closed) {
                    lock.wait();
                }
            } catch (InterruptedException e) {
                // The node is closing its store thread: the task gives up.
                Thread.currentThread().interrupt();
                throw new StoreException("interrupted while latched", e);
            } finally {
                waiting.decrementAndGet();
            }
        }
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
