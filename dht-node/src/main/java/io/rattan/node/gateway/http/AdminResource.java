package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /admin/records}: this node's own store, listed (key, value hash, tombstone) for copy counting;
 * {@code POST /admin/slow-trace?start=EPOCH_MS}: the slow-node trace's periods count from that moment (experiments
 * re-arm it at their own start); {@code POST /admin/backup?dir=PATH}: a backup of the data directory. Answers callers
 * on the node's own host only. Any thread; the future completes on the
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
            return notLocal("/admin/records");
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
            return notLocal("/admin/slow-trace");
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

    /**
     * {@code POST /admin/backup?dir=PATH}: a backup of this node's data directory in the new directory {@code PATH} on
     * its host (docs/deploy.md, "Backup and restore"): 201 with the directory, 400 for an unfit path, 409 when it
     * exists, 503 when it cannot be written.
     */
    CompletableFuture<ApiResponse> backup(ApiRequest request, Map<String, List<String>> query) {
        // It writes where the caller says on this host: operators ask from the node's own host only.
        if (!local(request)) {
            return notLocal("/admin/backup");
        }
        List<String> dir = query.getOrDefault("dir", List.of());
        Path target;
        try {
            target = Path.of(dir.size() == 1 ? dir.get(0) : "");
        } catch (InvalidPathException e) {
            target = Path.of("");
        }
        if (target.toString().isEmpty()) {
            return CompletableFuture.completedFuture(Problems.badRequest(
                    "give the backup's directory once: ?dir=ABSOLUTE_PATH, a new directory on this node's host"));
        }
        long start = System.nanoTime();
        return backend.backup(target).handle((taken, failure) -> {
            if (failure == null) {
                ObjectNode body = Json.object();
                body.put("dir", taken.toString());
                body.put("tookMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                return ApiResponse.json(201, Json.bytes(body));
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof IllegalArgumentException) {
                return Problems.badRequest(cause.getMessage());
            }
            if (cause instanceof FileAlreadyExistsException) {
                return Problems.problem(409, "conflict", "Conflict", "the backup's directory exists: a backup goes "
                        + "to a new directory");
            }
            return Problems.unavailable("cannot write the backup: " + cause.getMessage());
        });
    }

    /** The refusal of a caller from another host: these routes name the node's keys, or act on its host. */
    private static CompletableFuture<ApiResponse> notLocal(String route) {
        return CompletableFuture.completedFuture(
                Problems.forbidden(route + " answers callers on this node's own host only"));
    }

    static boolean local(ApiRequest request) {
        return request.client() != null && request.client().isLoopbackAddress();
    }
}
