package io.rattan.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code rattan.gateway.namespace.requests} (timer; tags {@code namespace}, {@code op}, {@code status}): every client
 * put, get and remove the gateways (binary and HTTP) handed this node, from the gateway's edge to the reply, by
 * namespace. It is timed here, at the edge, because the core's request meter ({@code rattan.gateway.requests}) is
 * told of a request without its namespace. A request for a namespace the node does not know is tagged
 * {@value #UNKNOWN}, so that the series stay bounded by {@code NamespaceDefinition.COUNT_MAX}. Thread-safe.
 */
final class NamespaceMeters {

    /** The tag of a request for a namespace the node does not know (never made, retired, or not heard of yet). */
    static final String UNKNOWN = "unknown";

    private final MeterRegistry registry;
    // Created on first use, so that a namespace, op or status never seen exports no series.
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    NamespaceMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The namespace tag of {@code request}, given the definitions the node holds; call on the node's loop. */
    static String tagOf(Message request, Supplier<List<NamespaceDefinition>> known) {
        if (!(request instanceof InNamespace n)) {
            // The default namespace's requests, most of them, cost no look-up.
            return NamespaceDefinition.DEFAULT;
        }
        for (NamespaceDefinition d : known.get()) {
            if (d.name().equals(n.namespace())) {
                return d.retired() ? UNKNOWN : d.name();
            }
        }
        return UNKNOWN;
    }

    /** Records one request served: its op is the wrapped message's, its status the reply's. */
    void requestDone(String namespace, Message request, Message reply, long latencyNanos) {
        Message asked = request instanceof InNamespace n ? n.body() : request;
        String op = op(asked.type());
        Status status = statusOf(reply);
        if (op == null || status == null) {
            return;
        }
        String statusTag = status.name().toLowerCase(Locale.ROOT);
        Timer timer = timers.computeIfAbsent(namespace + '\0' + op + '\0' + statusTag, k -> Timer
                .builder("rattan.gateway.namespace.requests")
                .description("Client requests handed to this node by its gateways, by namespace, from the gateway's "
                        + "edge to the reply")
                .tag("namespace", namespace)
                .tag("op", op)
                .tag("status", statusTag)
                .minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry));
        timer.record(Math.max(0, latencyNanos), TimeUnit.NANOSECONDS);
    }

    private static String op(MessageType type) {
        return switch (type) {
            case CLIENT_PUT -> "put";
            case CLIENT_GET -> "get";
            case CLIENT_REMOVE -> "remove";
            default -> null;
        };
    }

    private static Status statusOf(Message reply) {
        if (reply instanceof PutReply p) {
            return p.status();
        }
        if (reply instanceof GetReply g) {
            return g.status();
        }
        if (reply instanceof RemoveReply r) {
            return r.status();
        }
        return reply instanceof ErrorReply e ? e.status() : null;
    }
}
