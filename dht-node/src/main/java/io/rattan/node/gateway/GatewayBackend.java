package io.rattan.node.gateway;

import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.NamespaceChange;
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

    /**
     * As {@link #watch(ClientWatch, Consumer)}, of the key in {@code namespace} ({@value NamespaceDefinition#DEFAULT}:
     * the node's own); a namespace the node does not know ends the watch at once, NOT_FOUND.
     */
    default WatchHandle watch(String namespace, ClientWatch watch, Consumer<WatchEvent> sink) {
        if (NamespaceDefinition.DEFAULT.equals(namespace)) {
            return watch(watch, sink);
        }
        sink.accept(WatchEvent.ended(Status.NOT_FOUND, "this gateway serves no namespaces"));
        return () -> { };
    }

    /**
     * The namespaces the node knows, retired ones included, by name, read on its loop; the default namespace is not
     * among them (its settings are the node's own, {@link #config()}).
     */
    default CompletableFuture<List<NamespaceDefinition>> namespaces() {
        return CompletableFuture.completedFuture(List.of());
    }

    /**
     * Defines a namespace at the node ({@code Node.defineNamespace}), which passes it on to every node; fails with
     * {@link IllegalArgumentException} when the node cannot hold it (its k above the leaf set's half + 1).
     */
    default CompletableFuture<NamespaceChange> defineNamespace(NamespaceDefinition definition) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this gateway defines no namespaces"));
    }

    /** Retires a namespace at the node ({@code Node.retireNamespace}): every node drops its values. */
    default CompletableFuture<NamespaceChange> retireNamespace(String name) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this gateway retires no namespaces"));
    }

    /**
     * A client request as the node takes it in {@code namespace}: bare in the default namespace (whose requests have
     * always been bare on the wire), else wrapped in {@link InNamespace}.
     *
     * @throws IllegalArgumentException for a malformed namespace name
     */
    static Message inNamespace(String namespace, Message clientRequest) {
        return NamespaceDefinition.DEFAULT.equals(namespace) ? clientRequest
                : new InNamespace(namespace, clientRequest);
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
     * Writes a backup of the node's data directory to {@code target}, a new directory a node can start on, and
     * completes with it; fails with {@link IllegalArgumentException} for an unfit target, with
     * {@link java.nio.file.FileAlreadyExistsException} when it exists, with another {@link java.io.IOException} when
     * the backup cannot be written.
     */
    default CompletableFuture<java.nio.file.Path> backup(java.nio.file.Path target) {
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
