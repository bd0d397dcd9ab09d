package io.rattan.node;

import io.rattan.core.client.GetOptions;
import io.rattan.core.msg.Message;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The gateways' view of a running node: what the binary RPC and the HTTP gateway may ask of it. It exists so that the
 * gateways depend on {@link GatewayBackend} alone, never on {@link RattanNode}; every call is the node's own.
 */
final class NodeBackend implements GatewayBackend {

    private final RattanNode node;

    NodeBackend(RattanNode node) {
        this.node = node;
    }

    @Override
    public CompletableFuture<Message> request(Message clientRequest, GetOptions options) {
        return node.request(clientRequest, options);
    }

    @Override
    public CompletableFuture<NodeStatus> status() {
        return node.call(Node::status);
    }

    @Override
    public CompletableFuture<List<StoredRecord>> localRecords() {
        return node.localRecords();
    }

    @Override
    public Optional<String> storageFault() {
        StoreException.Kind fault = node.store().fault();
        return fault == null ? Optional.empty() : Optional.of(fault.name());
    }

    @Override
    public String scrapeMetrics() {
        return node.meterRegistry().scrape();
    }

    @Override
    public NodeConfig config() {
        return node.options().config();
    }
}
