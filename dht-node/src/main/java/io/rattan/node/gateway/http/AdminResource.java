package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /admin/records}: this node's own store, listed (key, value hash, tombstone) for copy counting. Answers
 * callers on the node's own host only. Any thread; the future completes on the thread that completed the backend's.
 */
final class AdminResource {

    private final GatewayBackend backend;

    AdminResource(GatewayBackend backend) {
        this.backend = backend;
    }

    CompletableFuture<ApiResponse> records(ApiRequest request) {
        // The listing names every key this node holds: operators ask from the node's own host only.
        if (request.client() == null || !request.client().isLoopbackAddress()) {
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
}
