package io.rattan.core.env;

/**
 * The node's single event loop. Every task runs on it, one at a time, so node state needs no locks.
 * {@link #execute} may be called from any thread; tasks run in submission order.
 */
public interface Scheduler {

    /** Runs {@code task} on the loop after {@code delayNanos}. */
    Cancellable schedule(long delayNanos, Runnable task);

    /** Runs {@code task} on the loop as soon as possible. */
    void execute(Runnable task);
}
