package io.rattan.node.gateway;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** What the client-facing gateways (binary RPC and HTTP) need from the node they front. Thread-safe. */
public interface GatewayBackend {

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} on the node's event loop, a get as its
     * options say; completes with a {@code PutReply}, {@code GetReply}, {@code RemoveReply} or {@code ErrorReply}, on
     * that loop. This is the gateways' edge: a request outside the node's limits ({@code ClientRequestValidator}) is
     * answered with its refusal at once, before it reaches the loop.
     */
    CompletableFuture<Message> request(Message clientRequest);

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

    /**
     * Makes the node's slow-trace periods ({@code --slow-trace}) count from {@code epochMillis}; completes with false
     * when the node replays none (no trace, or none of its periods).
     */
    default CompletableFuture<Boolean> armSlowTrace(long epochMillis) {
        return CompletableFuture.completedFuture(false);
    }

    /** The node's metrics in Prometheus text format. */
    String scrapeMetrics();

    /** The node's limits (value size, TTL, page size) for validating input before it reaches the node. */
    NodeConfig config();
}
