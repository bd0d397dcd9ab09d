package io.rattan.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The client's meters, or nothing when no registry was given. Tags are bounded (three ops, a handful of outcomes):
 * never a tag per gateway or key. Thread-safe.
 */
final class ClientMetrics {

    static final String REQUESTS = "rattan.client.requests";
    static final String RETRIES = "rattan.client.retries";
    static final String IN_FLIGHT = "rattan.client.requests.inflight";
    static final String HEDGES = "rattan.client.get.hedges";
    static final String RATE_LIMITED = "rattan.client.rate.limited";
    static final String FORGED = "rattan.client.get.forged";

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

    /** Drops the in-flight gauge, which would otherwise keep reading a closed client. */
    void close() {
        if (inFlightGauge != null) {
            registry.remove(inFlightGauge);
        }
    }
}
