package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /admin/records}: this node's own store, listed (key, value hash, tombstone) for copy counting;
 * {@code POST /admin/slow-trace?start=EPOCH_MS}: the slow-node trace's periods count from that moment (experiments
 * re-arm it at their own start). Answers callers on the node's own host only. Any thread; the future completes on the
 * thread that completed the backend's.
 */
final class AdminResource {

    private final GatewayBackend backend;

    AdminResource(GatewayBackend backend) {
        this.backend = backend;
    }

    CompletableFuture<ApiResponse> records(ApiRequest request) {
        // The listing names every key this node holds: operators ask from the node's own host only.
        if (!local(request)) {
            return CompletableFuture.completedFuture(
                    Problems.forbidden("/admin/records answers callers on this node's own host only"));
        }
        return backend.localRecords().handle((records, failure) -> {
            if (failure != null) {
                return Problems.unavailable("cannot list the local store: " + failure.getMessage());
            }
            ObjectNode body = Json.object();
            body.put("count", records.size());
            ArrayNode list = body.putArray("records");
            for (StoredRecord r : records) {
                ObjectNode o = list.addObject();
                o.put("key", r.key().toHex());
                o.put("valueHash", r.valueHash().toHex());
                o.put("tombstone", r.tombstone());
            }
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    CompletableFuture<ApiResponse> armSlowTrace(ApiRequest request, Map<String, List<String>> query) {
        // Fault injection: a stranger must not be able to move a node's slow periods.
        if (!local(request)) {
            return CompletableFuture.completedFuture(
                    Problems.forbidden("/admin/slow-trace answers callers on this node's own host only"));
        }
        List<String> start = query.getOrDefault("start", List.of());
        long epochMillis;
        try {
            epochMillis = Long.parseLong(start.size() == 1 ? start.get(0) : "");
        } catch (NumberFormatException e) {
            return CompletableFuture.completedFuture(
                    Problems.badRequest("give the moment the periods count from once: ?start=EPOCH_MS"));
        }
        // A node with no period of its own in the trace (or no trace) has nothing to re-arm, which is no error: a
        // cluster's trace need not name every node.
        return backend.armSlowTrace(epochMillis).thenApply(armed -> {
            ObjectNode body = Json.object();
            body.put("armed", armed);
            body.put("armedAtEpochMillis", epochMillis);
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    static boolean local(ApiRequest request) {
        return request.client() != null && request.client().isLoopbackAddress();
    }
}
