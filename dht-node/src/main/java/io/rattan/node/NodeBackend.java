package io.rattan.node;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.NamespaceChange;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.WatchHandle;
import io.rattan.node.store.RocksDbStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The gateways' view of a running node: what the binary RPC and the HTTP gateway may ask of it. It exists so that the
 * gateways depend on {@link GatewayBackend} alone, and so that it can be handed to them before {@link RattanNode}
 * itself exists: it reaches the node through the parts that the gateways are bound after.
 */
final class NodeBackend implements GatewayBackend {

    private final NodeOnLoop nodeOnLoop;
    private final OwnStore ownStore;
    private final RocksDbStore store;
    private final PrometheusMeterRegistry registry;
    private final NodeConfig config;
    private final NamespaceMeters meters;

    NodeBackend(NodeOnLoop nodeOnLoop, OwnStore ownStore, RocksDbStore store, PrometheusMeterRegistry registry,
                NodeConfig config) {
        this.nodeOnLoop = nodeOnLoop;
        this.ownStore = ownStore;
        this.store = store;
        this.registry = registry;
        this.config = config;
        this.meters = new NamespaceMeters(registry);
    }

    @Override
    public CompletableFuture<Message> request(Message clientRequest) {
        Optional<ErrorReply> refused = ClientRequestValidator.check(clientRequest, config);
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(refused.get());
        }
        long arrived = System.nanoTime();
        return nodeOnLoop.serve(clientRequest, (n, reply) -> {
            // Tagged on the loop, where the node says whether the namespace exists: a name nobody defined never
            // becomes a series, so the tags stay bounded by the namespaces a cluster may hold.
            String tag = NamespaceMeters.tagOf(clientRequest, n::namespaces);
            n.handleClient(clientRequest, answer -> {
                meters.requestDone(tag, clientRequest, answer, System.nanoTime() - arrived);
                reply.accept(answer);
            });
        });
    }

    @Override
    public WatchHandle watch(ClientWatch watch, Consumer<WatchEvent> sink) {
        return nodeOnLoop.watch(NamespaceDefinition.DEFAULT, watch, sink);
    }

    @Override
    public WatchHandle watch(String namespace, ClientWatch watch, Consumer<WatchEvent> sink) {
        return nodeOnLoop.watch(namespace, watch, sink);
    }

    @Override
    public CompletableFuture<List<NamespaceDefinition>> namespaces() {
        return nodeOnLoop.call(Node::namespaces);
    }

    @Override
    public CompletableFuture<NamespaceChange> defineNamespace(NamespaceDefinition definition) {
        return nodeOnLoop.call(n -> n.defineNamespace(definition));
    }

    @Override
    public CompletableFuture<NamespaceChange> retireNamespace(String name) {
        return nodeOnLoop.call(n -> n.retireNamespace(name));
    }

    @Override
    public CompletableFuture<NodeStatus> status() {
        return nodeOnLoop.call(Node::status);
    }

    @Override
    public CompletableFuture<List<StoredRecord>> localRecords() {
        return ownStore.records();
    }

    @Override
    public CompletableFuture<Path> backup(Path target) {
        return ownStore.backup(target);
    }

    @Override
    public CompletableFuture<Boolean> armSlowTrace(long epochMillis) {
        return nodeOnLoop.armSlowTrace(epochMillis);
    }

    @Override
    public Optional<String> storageFault() {
        StoreException.Kind fault = store.fault();
        return fault == null ? Optional.empty() : Optional.of(fault.name());
    }

    @Override
    public String scrapeMetrics() {
        return registry.scrape();
    }

    @Override
    public NodeConfig config() {
        return config;
    }
}
