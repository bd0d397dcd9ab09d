package io.rattan.node.gateway.binary;

import io.rattan.core.msg.Message;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.gateway.GatewayBackend;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A gateway backend that answers nothing by itself: it records each request with its reply future, and the test
 * completes the futures, in any order, from its own thread (as a node's loop would, from another thread).
 */
final class RecordingGatewayBackend implements GatewayBackend {

    record Call(Message request, CompletableFuture<Message> reply) {
    }

    final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();

    @Override
    public CompletableFuture<Message> request(Message clientRequest) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        calls.add(new Call(clientRequest, reply));
        return reply;
    }

    /** The next request the gateway passed on; fails the test if none comes within 20 s. */
    Call next() throws InterruptedException {
        Call call = calls.poll(20, TimeUnit.SECONDS);
        if (call == null) {
            throw new AssertionError("the gateway passed no request to the backend");
        }
        return call;
    }

    @Override
    public CompletableFuture<NodeStatus> status() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("not in this test"));
    }

    @Override
    public String scrapeMetrics() {
        return "";
    }

    @Override
    public NodeConfig config() {
        return NodeConfig.defaults();
    }
}
