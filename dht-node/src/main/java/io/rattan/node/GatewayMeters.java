package io.rattan.node;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rattan.api.Cost;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.MessageType;
import io.rattan.node.gateway.ClientGuard;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters of the node as a gateway: {@code rattan.gateway.requests} (timer; tags {@code op}, {@code status}),
 * {@code rattan.gateway.hops} (summary; tag {@code op}), {@code rattan.gateway.get.messages} and
 * {@code rattan.gateway.get.bytes} (summaries; tag {@code routing}) and {@code rattan.gateway.refused} (tag
 * {@code reason}). Thread-safe.
 */
final class GatewayMeters {

    private static final String[] OPS = {"put", "get", "remove"};
    private static final double[] HOP_BUCKETS = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32};

    private final MeterRegistry registry;
    // Created on first use, so that a status never seen exports no series.
    private final AtomicReferenceArray<Timer> requestTimers =
            new AtomicReferenceArray<>(OPS.length * Status.values().length);
    private final DistributionSummary[] hops = new DistributionSummary[OPS.length];
    // Per routing mode: messages at 2i, bytes at 2i + 1; created on first use.
    private final AtomicReferenceArray<DistributionSummary> getCost =
            new AtomicReferenceArray<>(2 * RoutingMode.values().length);

    GatewayMeters(MeterRegistry registry) {
        this.registry = registry;
        for (int i = 0; i < OPS.length; i++) {
            hops[i] = DistributionSummary.builder("rattan.gateway.hops")
                    .description("Overlay hops taken by client requests served by this node as gateway")
                    .baseUnit("hops")
                    .tag("op", OPS[i])
                    .serviceLevelObjectives(HOP_BUCKETS)
                    .register(registry);
        }
    }

    /** Counts the client limits' refusals: requests over a client's rate, puts beyond its storage share. */
    void bindClientGuard(ClientGuard guard) {
        FunctionCounter.builder("rattan.gateway.refused", guard, ClientGuard::rateLimited)
                .description("Client requests refused by the client limits (binary and HTTP together)")
                .tag("reason", "rate_limited").register(registry);
        FunctionCounter.builder("rattan.gateway.refused", guard, ClientGuard::quotaExceeded)
                .description("Client requests refused by the client limits (binary and HTTP together)")
                .tag("reason", "quota_exceeded").register(registry);
    }

    void clientRequestDone(MessageType op, Status status, long latencyNanos, int hopCount) {
        int opIndex = opIndex(op);
        if (opIndex < 0 || status == null) {
            return;
        }
        int slot = opIndex * Status.values().length + status.ordinal();
        Timer timer = requestTimers.get(slot);
        if (timer == null) {
            timer = Timer.builder("rattan.gateway.requests")
                    .description("Client requests served by this node as gateway, from arrival to reply")
                    .tag("op", OPS[opIndex])
                    .tag("status", status.name().toLowerCase(Locale.ROOT))
                    .publishPercentileHistogram(true)
                    .minimumExpectedValue(Duration.ofNanos(100_000))
                    .maximumExpectedValue(Duration.ofSeconds(60))
                    .register(registry);
            requestTimers.set(slot, timer);
        }
        timer.record(Math.max(0, latencyNanos), TimeUnit.NANOSECONDS);
        hops[opIndex].record(Math.max(0, hopCount));
    }

    void clientGetCost(RoutingMode routing, Cost cost) {
        if (routing == null || cost == null) {
            return;
        }
        costSummary(routing, 0, "rattan.gateway.get.messages", "messages",
                "Messages each get served by this node as gateway cost, as counted in band").record(cost.messages());
        costSummary(routing, 1, "rattan.gateway.get.bytes", "bytes",
                "Bytes each get served by this node as gateway cost, as counted in band (44 B header allowance "
                        + "per message)").record(cost.bytes());
    }

    private DistributionSummary costSummary(RoutingMode routing, int which, String name, String unit,
                                            String description) {
        int slot = 2 * routing.ordinal() + which;
        DistributionSummary summary = getCost.get(slot);
        if (summary == null) {
            summary = DistributionSummary.builder(name)
                    .description(description)
                    .baseUnit(unit)
                    .tag("routing", routing.label())
                    .register(registry);
            getCost.set(slot, summary);
        }
        return summary;
    }

    private static int opIndex(MessageType op) {
        if (op == null) {
            return -1;
        }
        switch (op) {
            case CLIENT_PUT:
                return 0;
            case CLIENT_GET:
                return 1;
            case CLIENT_REMOVE:
                return 2;
            default:
                return -1;
        }
    }
}
