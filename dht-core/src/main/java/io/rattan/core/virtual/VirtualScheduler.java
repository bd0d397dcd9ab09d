package io.rattan.core.virtual;

import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;

/**
 * The virtual world's one event loop: tasks ordered by (virtual time, sequence number), so that two runs from the
 * same seed execute the same events in the same order. Time only moves when the next event runs. Not thread-safe:
 * the whole simulated world runs on the thread that calls {@link #runUntil}.
 */
public final class VirtualScheduler implements Scheduler, Clock {

    private static final class Event implements Cancellable {
        final long cause;
        Runnable task;

        Event(long cause, Runnable task) {
            this.cause = cause;
            this.task = task;
        }

        @Override
        public void cancel() {
            task = null;
        }
    }

    private final EventHeap<Event> queue = new EventHeap<>();
    private final long epochMillisAtZero;
    private long now;
    private long seq;
    private long executed;
    private long cause;

    /** @param epochMillisAtZero the wall-clock time the world starts at, for value expiry */
    public VirtualScheduler(long epochMillisAtZero) {
        this.epochMillisAtZero = epochMillisAtZero;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Event e = new Event(cause, task);
        queue.add(now + Math.max(0, delayNanos), seq++, e);
        return e;
    }

    @Override
    public void execute(Runnable task) {
        schedule(0, task);
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public long epochMillis() {
        return epochMillisAtZero + now / 1_000_000L;
    }

    /** Runs every event due up to and including {@code timeNanos}, then sets the clock to it. */
    public void runUntil(long timeNanos) {
        while (!queue.isEmpty() && queue.peekTime() <= timeNanos) {
            runNext();
        }
        now = Math.max(now, timeNanos);
    }

    public void runFor(long durationNanos) {
        runUntil(now + durationNanos);
    }

    /**
     * Runs events until {@code done} holds or {@code deadlineNanos} (absolute virtual time) passes; returns whether
     * {@code done} held.
     */
    public boolean runUntil(java.util.function.BooleanSupplier done, long deadlineNanos) {
        while (!done.getAsBoolean()) {
            if (queue.isEmpty() || queue.peekTime() > deadlineNanos) {
                now = Math.max(now, deadlineNanos);
                return done.getAsBoolean();
            }
            runNext();
        }
        return true;
    }

    private void runNext() {
        now = queue.peekTime();
        Event e = queue.poll();
        Runnable task = e.task;
        if (task != null) {
            executed++;
            cause = e.cause;
            try {
                task.run();
            } finally {
                cause = 0;
            }
        }
    }

    /**
     * The cause of the running event: a tag that every event scheduled while it runs inherits, so that all the work
     * a request sets off (forwards, acks, retries, probes, late replies) can be charged to it. 0 means none. Node
     * code never sees it; the simulator's cost accounting reads it when a message is sent.
     */
    public long cause() {
        return cause;
    }

    /** Tags the running code, and everything it schedules from now on, with {@code cause} (0 for none). */
    public void cause(long cause) {
        this.cause = cause;
    }

    /** Events run so far (cancelled ones excluded). */
    public long executed() {
        return executed;
    }

    public int queued() {
        return queue.size();
    }
}
