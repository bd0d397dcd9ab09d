package io.rattan.client;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in the order given, on the client's completion executor ({@link
 * ClientRuntime#completeOff}): what a watch does runs here, so that its state needs no lock and its listener is called
 * in order, never on an event loop. A task that throws is logged; the next runs all the same. Thread-safe.
 */
final class SerialRunner implements Executor {

    private static final Logger log = LoggerFactory.getLogger(SerialRunner.class);

    private final ClientRuntime runtime;
    private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    SerialRunner(ClientRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void execute(Runnable task) {
        queue.add(task);
        if (scheduled.compareAndSet(false, true)) {
            runtime.completeOff(this::drain);
        }
    }

    private void drain() {
        while (true) {
            Runnable task;
            while ((task = queue.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.warn("a watch task failed", e);
                }
            }
            scheduled.set(false);
            // A task added after the last poll and before the reset above found it set: run it here.
            if (queue.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
        }
    }
}
