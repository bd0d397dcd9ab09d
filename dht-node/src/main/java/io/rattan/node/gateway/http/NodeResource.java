package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.gateway.GatewayBackend;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The node's own state for operators and probes: {@code /health} (the process serves), {@code /ready} (joined, its
 * neighbours heard, its store healthy), {@code /node} (identity, leaf set, routing table fill) and {@code /metrics}
 * (Prometheus text). Any thread; the futures complete on the thread that completed the backend's.
 */
final class NodeResource {

    private final GatewayBackend backend;

    NodeResource(GatewayBackend backend) {
        this.backend = backend;
    }

    CompletableFuture<ApiResponse> health() {
        ObjectNode body = Json.object();
        body.put("status", "serving");
        return CompletableFuture.completedFuture(ApiResponse.json(200, Json.bytes(body)));
    }

    CompletableFuture<ApiResponse> ready() {
        return status(status -> {
            if (!status.joined()) {
                return Problems.notReady("the node has not joined the overlay yet");
            }
            Optional<String> fault = backend.storageFault();
            if (fault.isPresent()) {
                return Problems.notReady("the node's store is in a storage fault (" + fault.get() + "); it recovers "
                        + "by itself once the fault clears (e.g. disk space returns)");
            }
            if (!status.ready()) {
                return Problems.notReady("the node has joined but has not yet heard from its nearest neighbours, or"
                        + " they have not yet confirmed its expiry clock (it restarted behind its last reading, or its"
                        + " clock differs from theirs)");
            }
            ObjectNode body = Json.object();
            body.put("status", "ready");
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    CompletableFuture<ApiResponse> node() {
        return status(status -> {
            ObjectNode body = Json.object();
            body.put("id", status.self().id().toHex());
            body.put("address", status.self().address().toString());
            body.put("joined", status.joined());
            body.put("ready", status.ready());
            ArrayNode leafSet = body.putArray("leafSet");
            for (Contact c : status.leafSet()) {
                ObjectNode leaf = leafSet.addObject();
                leaf.put("id", c.id().toHex());
                leaf.put("address", c.address().toString());
            }
            ArrayNode rows = body.putArray("routingRowFill");
            for (int fill : status.routingRowFill()) {
                rows.add(fill);
            }
            body.put("routingEntries", status.routingEntries());
            body.put("storedRecords", status.storedRecords());
            ObjectNode namespaces = body.putObject("namespaceRecords");
            status.namespaceRecords().forEach(namespaces::put);
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    CompletableFuture<ApiResponse> metrics() {
        String text = backend.scrapeMetrics();
        return CompletableFuture.completedFuture(
                new ApiResponse(200, ApiResponse.PROMETHEUS_TEXT, Bytes.utf8(text), Map.of(), false));
    }

    private CompletableFuture<ApiResponse> status(Function<NodeStatus, ApiResponse> onStatus) {
        CompletableFuture<NodeStatus> status;
        try {
            status = backend.status();
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Problems.failure(e));
        }
        return status.handle((s, error) -> error != null ? Problems.failure(error) : onStatus.apply(s));
    }
}
