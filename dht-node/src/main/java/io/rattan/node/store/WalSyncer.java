package io.rattan.node.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Group commit for {@code --fsync}: actions queued while a WAL sync runs wait for the next one, which serves them
 * all, so concurrent puts share syncs. Each action runs on the node's loop ({@code loop}) only after a sync that began
 * after it was queued has returned; since a write happens before its action is queued, that sync covers the write.
 * A failed sync is reported and retried; its actions wait (an acknowledgement never leaves unsynced).
 */
final class WalSyncer {

    private static final long RETRY_MILLIS = 100;

    private final RocksDB db;
    private final Executor loop;
    private final Consumer<RocksDBException> onFailure;
    private final Thread thread;
    private final AtomicLong completed = new AtomicLong();
    private final Object lock = new Object();
    private List<Runnable> queued = new ArrayList<>();
    private boolean closed;

    WalSyncer(RocksDB db, Executor loop, Consumer<RocksDBException> onFailure) {
        this.db = db;
        this.loop = loop;
        this.onFailure = onFailure;
        this.thread = new Thread(this::run, "rattan-wal-sync");
        thread.setDaemon(true);
        thread.start();
    }

    void add(Runnable action) {
        synchronized (lock) {
            queued.add(action);
            lock.notifyAll();
        }
    }

    /** Syncs completed so far. */
    long completed() {
        return completed.get();
    }

    /** Stops the thread; actions still queued are dropped (their writes may not be durable). */
    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (true) {
            List<Runnable> batch;
            synchronized (lock) {
                while (queued.isEmpty() && !closed) {
                    waitQuietly(0);
                }
                if (closed) {
                    return;
                }
                batch = queued;
                queued = new ArrayList<>();
            }
            if (!syncUntilDone()) {
                return;
            }
            completed.incrementAndGet();
            try {
                loop.execute(() -> batch.forEach(Runnable::run));
            } catch (RejectedExecutionException e) {
                return; // the node's loop has shut down: nobody is left to acknowledge
            }
        }
    }

    /** Syncs, retrying after a failure; false when closed meanwhile. */
    private boolean syncUntilDone() {
        while (true) {
            try {
                db.syncWal();
                return true;
            } catch (RocksDBException e) {
                onFailure.accept(e);
                synchronized (lock) {
                    if (closed) {
                        return false;
                    }
                    waitQuietly(RETRY_MILLIS);
                    if (closed) {
                        return false;
                    }
                }
            }
        }
    }

    private void waitQuietly(long millis) {
        try {
            lock.wait(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }
}
