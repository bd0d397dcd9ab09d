package io.rattan.node;

import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A test hook around a node's store ({@link RattanNode#start(NodeOptions, java.util.function.UnaryOperator)}): while
 * the latch is closed, every task the node submits to its store ({@link Store#submit}) waits on the store's thread
 * before it runs, as behind a RocksDB write stall or a scan of millions of records. Every other call is forwarded
 * ({@link ForwardingStore}).
 */
final class LatchedStore extends ForwardingStore {

    private final Object lock = new Object();
    private final AtomicInteger waiting = new AtomicInteger();
    private boolean closed;

    LatchedStore(Store store) {
        super(store);
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
        delegate.submit(() -> {
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
}
