package io.rattan.node.gateway;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientWatch;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.WatchEvent;
import io.rattan.core.msg.Status;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** What the client-facing gateways (binary RPC and HTTP) need from the node they front. Thread-safe. */
public interface GatewayBackend {

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} on the node's event loop, a get as its
     * options say; completes with a {@code PutReply}, {@code GetReply}, {@code RemoveReply} or {@code ErrorReply}, on
     * that loop. This is the gateways' edge: a request outside the node's limits ({@code ClientRequestValidator}) is
     * answered with its refusal at once, before it reaches the loop.
     */
    CompletableFuture<Message> request(Message clientRequest);

    /**
     * Starts a client's watch of a key ({@code Node.watch}): {@code sink} hears its events on the node's event loop,
     * where the gateways' sockets live, in order: a VALUE per live value, READY, then every change, and last an ENDED
     * (the node stops, no replica took the watch, or the node serves its most watches) unless the handle is closed
     * first. Never throws: a watch the node cannot take ends at once, on the caller's thread if the loop is gone.
     */
    default WatchHandle watch(ClientWatch watch, Consumer<WatchEvent> sink) {
        sink.accept(WatchEvent.ended(Status.UNAVAILABLE, "this gateway serves no watches"));
        return () -> { };
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
