package io.rattan.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoop;
import io.rattan.core.env.Cancellable;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.node.store.RocksDbStore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers that keep a node's metrics current, on its loop: the gauges refreshed from {@link Node#status} every
 * second (with the store's fault probe, so a node whose disk filled becomes ready again with no restart), the watch
 * that exports how long the node took to become ready, and the loop-lag probe. It exists so that what the node
 * exports over time lives apart from what the node does; {@link NodeMetrics} owns the meters themselves.
 */
final class MetricsRefresh {

    static final long METRICS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    // How often the node checks for its first ready: fine enough to time a start of a few hundred milliseconds.
    static final long READY_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    // RattanNode's logger: its lines (the "ready" line above all) keep the name operators and tools know them by.
    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    private final EventLoopScheduler scheduler;
    private final EventLoop loop;
    private final MeterRegistry registry;
    private final NodeMetrics metrics;
    private final RocksDbStore store;
    private final Contact contact;
    // On the loop: the node, or null once it has stopped.
    private final Supplier<Node> node;
    // When the node's start began (System.nanoTime), for the time to ready.
    private final long startNanos;

    // Confined to the loop.
    private Cancellable refresh = Cancellable.NONE;
    private Cancellable readyWatch = Cancellable.NONE;
    private LoopLagProbe lagProbe;

    MetricsRefresh(EventLoopScheduler scheduler, EventLoop loop, MeterRegistry registry, NodeMetrics metrics,
                   RocksDbStore store, Contact contact, Supplier<Node> node, long startNanos) {
        this.scheduler = scheduler;
        this.loop = loop;
        this.registry = registry;
        this.metrics = metrics;
        this.store = store;
        this.contact = contact;
        this.node = node;
        this.startNanos = startNanos;
    }

    /** On the loop, once the node has started: starts the refresh, the ready watch and the lag probe. */
    void start() {
        refresh = scheduler.schedule(0, this::refresh);
        readyWatch = scheduler.schedule(0, this::watchReady);
        lagProbe = new LoopLagProbe(loop, registry);
        lagProbe.start();
    }

    /** On the loop: stops every timer; idempotent. */
    void stop() {
        refresh.cancel();
        readyWatch.cancel();
        if (lagProbe != null) {
            lagProbe.stop();
        }
    }

    private void refresh() {
        Node n = node.get();
        if (n == null) {
            return;
        }
        try {
            // A faulted store is probed here, so the node becomes ready again once space returns, with no restart.
            store.probe();
            metrics.update(n.status());
            metrics.storeBytes(store.sstBytes());
        } catch (RuntimeException e) {
            log.warn("{}: cannot refresh metrics from the node status", contact, e);
        }
        refresh = scheduler.schedule(METRICS_REFRESH_NANOS, this::refresh);
    }

    /**
     * On the loop, until the node is first ready: then logs and exports how long it took from this node's start
     * and from the process's (JVM boot, class loading and any warm-up included), which is what a cold start costs.
     */
    private void watchReady() {
        Node n = node.get();
        if (n == null) {
            return;
        }
        if (!n.isReady()) {
            readyWatch = scheduler.schedule(READY_POLL_NANOS, this::watchReady);
            return;
        }
        long sinceStart = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        long sinceProcess = ProcessHandle.current().info().startInstant()
                .map(t -> System.currentTimeMillis() - t.toEpochMilli()).orElse(-1L);
        metrics.ready(sinceStart, sinceProcess);
        log.info("node {} ready: {} ms after the node's start, {} ms after the process's", contact, sinceStart,
                sinceProcess);
    }
}
