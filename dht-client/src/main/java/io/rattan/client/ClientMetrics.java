package io.rattan.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The client's meters, or nothing when no registry was given. Tags are bounded (four ops, a handful of outcomes):
 * never a tag per gateway or key. Thread-safe.
 */
final class ClientMetrics {

    static final String REQUESTS = "rattan.client.requests";
    static final String RETRIES = "rattan.client.retries";
    static final String IN_FLIGHT = "rattan.client.requests.inflight";
    static final String HEDGES = "rattan.client.get.hedges";
    static final String RATE_LIMITED = "rattan.client.rate.limited";
    static final String FORGED = "rattan.client.get.forged";
    static final String RING_NODES = "rattan.client.ring.nodes";
    static final String RING_LOADS = "rattan.client.ring.loads";

    /** The outcome tag of a call that succeeded. */
    static final String SUCCESS = "success";
    /** The outcome tag of a call cancelled by its caller. */
    static final String CANCELLED = "cancelled";

    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<Op, Counter> retries = new EnumMap<>(Op.class);
    private final Map<Op, Counter> rateLimited = new EnumMap<>(Op.class);
    private final java.util.concurrent.atomic.LongAdder rateLimitedCount = new java.util.concurrent.atomic.LongAdder();
    private final Gauge inFlightGauge;
    private final Counter hedges;
    private final Counter forged;
    private final List<Meter> ringGauges = new CopyOnWriteArrayList<>();

    ClientMetrics(MeterRegistry registry, IntSupplier inFlight) {
        this.registry = registry;
        if (registry != null) {
            for (Op op : Op.values()) {
                retries.put(op, Counter.builder(RETRIES)
                        .description("Client request attempts after the first")
                        .tag("op", op.tag())
                        .register(registry));
                rateLimited.put(op, Counter.builder(RATE_LIMITED)
                        .description("Attempts a gateway refused as over this client's rate; each waited its "
                                + "Retry-After before the next attempt")
                        .tag("op", op.tag())
                        .register(registry));
            }
            inFlightGauge = Gauge.builder(IN_FLIGHT, inFlight::getAsInt)
                    .description("Client calls in flight or waiting to retry")
                    .register(registry);
            hedges = Counter.builder(HEDGES)
                    .description("Hedge copies sent: get pages that had no good answer within the hedge threshold")
                    .register(registry);
            forged = Counter.builder(FORGED)
                    .description("Owned values a get dropped because their owner's signature did not verify")
                    .register(registry);
        } else {
            inFlightGauge = null;
            hedges = null;
            forged = null;
        }
    }

    /** Records one call, from its start to its outcome, all attempts included. */
    void record(Op op, String outcome, long nanos) {
        if (registry == null) {
            return;
        }
        timers.computeIfAbsent(op.tag() + '/' + outcome, k -> Timer.builder(REQUESTS)
                        .description("Client calls, all attempts included, by operation and outcome")
                        .tag("op", op.tag())
                        .tag("outcome", outcome)
                        .publishPercentileHistogram()
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    void retry(Op op) {
        if (registry != null) {
            retries.get(op).increment();
        }
    }

    /** An attempt was refused as over the client's rate; counted with or without a registry. */
    void rateLimited(Op op) {
        rateLimitedCount.increment();
        if (registry != null) {
            rateLimited.get(op).increment();
        }
    }

    /** Attempts refused as over the client's rate so far. */
    long rateLimitedCount() {
        return rateLimitedCount.sum();
    }

    /** One get page sent its hedge copy. */
    void hedged() {
        if (hedges != null) {
            hedges.increment();
        }
    }

    /** A get dropped {@code count} owned values whose signatures did not verify. */
    void forged(int count) {
        if (forged != null) {
            forged.increment(count);
        }
    }

    /**
     * The ring loader's meters: the nodes its last load named and the loads completed, read from {@code nodes} and
     * {@code loads}; registered once, by the loader, when the client loads the ring.
     */
    void ring(IntSupplier nodes, LongSupplier loads) {
        if (registry == null) {
            return;
        }
        ringGauges.add(Gauge.builder(RING_NODES, nodes::getAsInt)
                .description("Nodes named by the client's last load of the ring (its one-hop image holds them)")
                .register(registry));
        ringGauges.add(FunctionCounter.builder(RING_LOADS, loads, LongSupplier::getAsLong)
                .description("Loads of the ring completed, the first at start, then one about every minute")
                .register(registry));
    }

    /** Drops the gauges, which would otherwise keep reading a closed client. */
    void close() {
        if (inFlightGauge != null) {
            registry.remove(inFlightGauge);
        }
        for (Meter m : ringGauges) {
            registry.remove(m);
        }
    }
}
