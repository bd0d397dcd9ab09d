package io.rattan.node;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Scheduler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's {@link Scheduler} on one Netty {@link EventLoop}: the same thread that runs the node's channels, so a
 * frame that arrives and a timer that fires never race.
 *
 * <p>Tasks that throw are logged and do not stop the loop (Netty would otherwise swallow a scheduled task's exception
 * into its future, where nobody looks). Once the loop is shutting down, new tasks are dropped and logged at debug:
 * a node that is closing has nothing left to do. Any thread may call {@link #execute} and {@link #schedule}.
 */
final class EventLoopScheduler implements Scheduler {

    private static final Logger log = LoggerFactory.getLogger(EventLoopScheduler.class);

    private final EventLoop loop;

    EventLoopScheduler(EventLoop loop) {
        if (loop == null) {
            throw new IllegalArgumentException("loop is required");
        }
        this.loop = loop;
    }

    /** The loop tasks run on. */
    EventLoop loop() {
        return loop;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Runnable guarded = guard(task);
        try {
            ScheduledFuture<?> future = loop.schedule(guarded, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            log.debug("loop is shutting down; dropped a task scheduled in {} ns", delayNanos);
            return Cancellable.NONE;
        }
    }

    @Override
    public void execute(Runnable task) {
        Runnable guarded = guard(task);
        try {
            loop.execute(guarded);
        } catch (RejectedExecutionException e) {
            log.debug("loop is shutting down; dropped a task");
        }
    }

    private static Runnable guard(Runnable task) {
        if (task == null) {
            throw new IllegalArgumentException("task is required");
        }
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | AssertionError e) {
                log.error("a task on the node loop failed", e);
            }
        };
    }
}
