package io.rattan.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Measures the node's event-loop lag: a task asks to run every {@value #PERIOD_MILLIS} ms, and how late it runs is
 * how long anything queued on the loop (a message, a timer, a client request) waited behind the work before it,
 * RocksDB calls included. Exported as the timer {@code rattan.eventloop.lag} with p99, p99.9 and max.
 */
final class LoopLagProbe {

    static final long PERIOD_MILLIS = 20;

    private final EventLoop loop;
    private final Timer lag;
    private ScheduledFuture<?> next;
    private volatile boolean stopped;

    LoopLagProbe(EventLoop loop, MeterRegistry registry) {
        this.loop = loop;
        this.lag = Timer.builder("rattan.eventloop.lag")
                .description("How late a task scheduled on the node's event loop runs (what the loop's work costs "
                        + "everything queued behind it)")
                .publishPercentiles(0.99, 0.999)
                .register(registry);
    }

    /** Starts probing; call on or off the loop. */
    void start() {
        schedule();
    }

    void stop() {
        stopped = true;
        ScheduledFuture<?> f = next;
        if (f != null) {
            f.cancel(false);
        }
    }

    private void schedule() {
        if (stopped || loop.isShuttingDown()) {
            return;
        }
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        next = loop.schedule(() -> {
            lag.record(Math.max(0, System.nanoTime() - due), TimeUnit.NANOSECONDS);
            schedule();
        }, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
}
