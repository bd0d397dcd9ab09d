package io.rattan.node.store;

import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's store as its core sees it: the work the core submits ({@link Store#submit}: writes, scans, repair's
 * batch reads, purges) runs on one thread of this store's own, never on the node's event loop, and each result is
 * handed back to the loop. So a repair that scans a million records, a batch of copies or a RocksDB write stall (never
 * for ever, {@link BoundedWrites}) holds this thread, while the loop keeps answering pings, gets and its gateways.
 *
 * <p>One thread: tasks run one at a time in the order submitted, and their completions reach the loop in that
 * order. Every write goes through it, so a write's read-then-write (the tombstone rule) never races another write. The
 * queue is bounded ({@code queueMax} tasks): a submission beyond it is refused at once, on the caller's thread, with
 * {@link StoreException} ({@code IO}, "store busy"), which the node answers as it answers an I/O error (a replica
 * answers {@code IO_ERROR}; a put that cannot make W is HTTP 503 with Retry-After), rather than let the queue and
 * the wait grow. Refusals are counted ({@link #refused}).
 *
 * <p>The other calls go straight to the wrapped store on the caller's thread: the point reads and a get's page,
 * which the node makes on its loop (a bounded read of one key; docs/durability.md says what is measured), and the
 * counters. The wrapped store must take calls from both threads ({@link RocksDbStore} does). Thread-safe.
 */
public final class OffLoopStore extends ForwardingStore implements AutoCloseable {

    /** Tasks that may wait for the store thread: at about 50 µs a task, some 50 ms of work. */
    public static final int QUEUE_MAX = 1024;

    private static final Logger log = LoggerFactory.getLogger(OffLoopStore.class);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final Executor loop;
    private final int queueMax;
    private final ThreadPoolExecutor worker;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();

    /**
     * @param store    the store the work runs against
     * @param loop     hands a completion to the node's event loop
     * @param queueMax tasks that may wait for the store thread
     * @param name     names the thread ({@code rattan-store-NAME})
     */
    public OffLoopStore(Store store, Executor loop, int queueMax, String name) {
        super(store);
        if (loop == null || queueMax < 1) {
            throw new IllegalArgumentException("a loop and a positive queue bound are required");
        }
        this.loop = loop;
        this.queueMax = queueMax;
        this.worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueMax),
                r -> {
                    Thread t = new Thread(r, "rattan-store-" + name);
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
    }

    @Override
    public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        try {
            worker.execute(() -> run(work, done));
        } catch (RejectedExecutionException e) {
            refused.incrementAndGet();
            done.accept(null, new StoreException(StoreException.Kind.IO, worker.isShutdown() ? "store closed"
                    : "store busy: " + queueMax + " tasks queued", null));
        }
    }

    /** On the store thread: runs the work, then hands its result to the loop. */
    private <T> void run(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        T result = null;
        RuntimeException failure = null;
        try {
            result = work.get();
        } catch (RuntimeException e) {
            failure = e;
        }
        completed.incrementAndGet();
        T r = result;
        RuntimeException f = failure;
        try {
            loop.execute(() -> done.accept(r, f));
        } catch (RejectedExecutionException e) {
            // The node's loop has shut down: nobody is left to hear the result.
            log.debug("store task finished after the node's loop shut down");
        }
    }

    /** Tasks waiting for the store thread now (the one running excluded). */
    public int queued() {
        return worker.getQueue().size();
    }

    /** Submissions refused because the queue was full (or the store closed), since start. */
    public long refused() {
        return refused.get();
    }

    /** Tasks the store thread has run, since start. */
    public long completed() {
        return completed.get();
    }

    /**
     * Stops the store thread: queued tasks are dropped (nothing they did was acknowledged; their completions would
     * reach no loop) and the running one is waited for, up to 10 s. Returns true once no task can touch the wrapped
     * store any more, which must hold before that store is closed. Does not close the wrapped store.
     */
    public boolean closeAndWait() {
        List<Runnable> dropped = worker.shutdownNow();
        if (!dropped.isEmpty()) {
            log.info("store closing: {} queued tasks dropped", dropped.size());
        }
        try {
            if (worker.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.error("store thread still busy {} s after close; the store is left open rather than freed under it",
                CLOSE_WAIT_SECONDS);
        return false;
    }

    @Override
    public void close() {
        closeAndWait();
    }

}
