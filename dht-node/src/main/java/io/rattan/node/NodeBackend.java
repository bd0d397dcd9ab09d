package io.rattan.node;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientWatch;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.WatchEvent;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.WatchHandle;
import io.rattan.node.store.RocksDbStore;
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

    NodeBackend(NodeOnLoop nodeOnLoop, OwnStore ownStore, RocksDbStore store, PrometheusMeterRegistry registry,
                NodeConfig config) {
        this.nodeOnLoop = nodeOnLoop;
        this.ownStore = ownStore;
        this.store = store;
        this.registry = registry;
        this.config = config;
    }

    @Override
    public CompletableFuture<Message> request(Message clientRequest) {
        Optional<ErrorReply> refused = ClientRequestValidator.check(clientRequest, config);
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(refused.get());
        }
        return nodeOnLoop.serve(clientRequest, (n, reply) -> n.handleClient(clientRequest, reply));
    }

    @Override
    public WatchHandle watch(ClientWatch watch, Consumer<WatchEvent> sink) {
        return nodeOnLoop.watch(watch, sink);
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
