package io.rattan.node.gateway;

import io.rattan.core.client.GetOptions;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Status;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** What the client-facing gateways (binary RPC and HTTP) need from the node they front. Thread-safe. */
public interface GatewayBackend {

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} on the node's event loop, a get as
     * {@code options} say; completes with a {@code PutReply}, {@code GetReply}, {@code RemoveReply} or
     * {@code ErrorReply}, on that loop. The node validates the request.
     */
    CompletableFuture<Message> request(Message clientRequest, GetOptions options);

    /**
     * Serves a request as the binary RPC carries it: a get with the options its own fields name
     * ({@link GetOptions#carriedBy}); fields that make no valid options are answered {@code BAD_REQUEST}.
     */
    default CompletableFuture<Message> request(Message clientRequest) {
        GetOptions options;
        try {
            options = GetOptions.carriedBy(clientRequest);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(new ErrorReply(Status.BAD_REQUEST, e.getMessage()));
        }
        return request(clientRequest, options);
    }

    /** A snapshot of the node, taken on its event loop. */
    CompletableFuture<NodeStatus> status();

    /**
     * The storage fault the node's store is in ({@code "FULL"} or {@code "IO"}), or empty when it is healthy; a
     * faulted node is not ready.
     */
    default Optional<String> storageFault() {
        return Optional.empty();
    }

    /**
     * Every live record (values and tombstones) in this node's own store, in key order, read on its loop: the admin
     * listing that counts copies from the store itself, never from gets.
     */
    default CompletableFuture<List<StoredRecord>> localRecords() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("no local store"));
    }

    /** The node's metrics in Prometheus text format. */
    String scrapeMetrics();

    /** The node's limits (value size, TTL, page size) for validating input before it reaches the node. */
    NodeConfig config();
}
