package io.rattan.core.virtual;

import io.rattan.api.Address;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Scheduler;
import java.util.function.Consumer;

/**
 * One virtual node's view of the world's scheduler: a timer that falls due while the node is still serving messages
 * that arrived before it (as the {@link LatencyModel} says) runs once they are served, as on a real node, whose
 * timers and message handlers share one loop. Without this, a node in a slow period would see its timers fire on
 * time while the replies they wait for sat in its own queue: every per-hop timeout of a slow gateway would expire.
 */
final class NodeLoop implements Scheduler {

    private final VirtualScheduler scheduler;
    private final LatencyModel latency;
    private final Address address;
    // Null: a task's exception ends the run (tests want to see it). Else, as a Netty loop logs and drops a task's
    // exception and goes on, the loop hands it here and goes on; the fault simulator counts them.
    private final Consumer<RuntimeException> escaped;

    NodeLoop(VirtualScheduler scheduler, LatencyModel latency, Address address) {
        this(scheduler, latency, address, null);
    }

    NodeLoop(VirtualScheduler scheduler, LatencyModel latency, Address address, Consumer<RuntimeException> escaped) {
        this.scheduler = scheduler;
        this.latency = latency;
        this.address = address;
        this.escaped = escaped;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Timer timer = new Timer(task);
        timer.pending = scheduler.schedule(delayNanos, timer);
        return timer;
    }

    @Override
    public void execute(Runnable task) {
        scheduler.execute(escaped == null ? task : () -> runGuarded(task));
    }

    private void runGuarded(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            escaped.accept(e);
        }
    }

    /** Runs first when due, then, if the node was busy, once more when it is free: then the task runs. */
    private final class Timer implements Cancellable, Runnable {
        private Runnable task;
        private Cancellable pending;
        private boolean deferred;

        Timer(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (!deferred) {
                long now = scheduler.nanoTime();
                long ready = latency.readyAtNanos(address, now);
                if (ready > now) {
                    // Once: messages that arrive while it waits are behind it in the queue.
                    deferred = true;
                    pending = scheduler.schedule(ready - now, this);
                    return;
                }
            }
            Runnable t = task;
            task = null;
            if (t != null) {
                if (escaped == null) {
                    t.run();
                } else {
                    runGuarded(t);
                }
            }
        }

        @Override
        public void cancel() {
            task = null;
            pending.cancel();
        }
    }
}
