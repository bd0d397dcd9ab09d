package io.rattan.node.http;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import java.util.concurrent.CompletableFuture;

/** What the client-facing gateways (binary RPC and HTTP) need from the node they front. Thread-safe. */
public interface GatewayBackend {

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} on the node's event loop; completes with a
     * {@code PutReply}, {@code GetReply}, {@code RemoveReply} or {@code ErrorReply}, on that loop.
     */
    CompletableFuture<Message> request(Message clientRequest);

    /**
     * Serves a get on the node's event loop, started at the node itself and at {@code gateways − 1} other nodes of
     * its choosing, with one more copy after its hedge threshold when {@code hedge}; the first good answer wins.
     * With {@code oneHop} the copies go instead straight to the nodes the node's one-hop image says hold the key.
     * Completes like {@link #request}, with a {@code GetReply} or {@code ErrorReply}.
     */
    CompletableFuture<Message> get(ClientGet get, int gateways, boolean hedge, boolean oneHop);

    /** A snapshot of the node, taken on its event loop. */
    CompletableFuture<NodeStatus> status();

    /** The node's metrics in Prometheus text format. */
    String scrapeMetrics();

    /** The node's limits (value size, TTL, page size) for validating input before it reaches the node. */
    NodeConfig config();
}
