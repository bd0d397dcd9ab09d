package io.rattan.node.gateway.http;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.netty.TcpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The HTTP/JSON gateway of one node: serves the HTTP API of DESIGN.md ({@code /v1/keys/...}, {@code /health},
 * {@code /ready}, {@code /node}, {@code /metrics}) by handing each request to a {@link GatewayBackend}.
 *
 * <p>Bodies are read up to the node's {@code valueBytesMax} plus {@link #BODY_SLACK_BYTES}; anything larger is
 * answered 413 and the connection closed. A put without {@code ?ttl=} lives {@value ApiRouter#TTL_SECONDS_DEFAULT}
 * seconds (or the node's maximum TTL if that is shorter); a remove without {@code ?ttl=} keeps its tombstone for the
 * node's maximum TTL, so it outlives any value it removes.
 *
 * <p>The constructor binds before it returns. The event loop group belongs to the caller, who shuts it down after
 * {@link #close()}; it may be a NIO or an epoll group. Thread-safe; {@code close} is idempotent.
 */
public final class HttpGateway implements AutoCloseable {

    /** Body bytes read beyond the largest value, so that a slightly oversized value gets a precise 413. */
    public static final int BODY_SLACK_BYTES = 1024;

    // Unbounded, as the HTTP gateway has always been; the peer and binary servers cap theirs at 4,096.
    private static final int CONNECTIONS_MAX = Integer.MAX_VALUE;
    private static final int BACKLOG = 256;

    private final TcpServer server;

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException when the address cannot be bound (in use, not local, no permission); its cause is
     *                              the bind failure
     */
    public HttpGateway(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend) {
        NodeConfig config = backend.config();
        HttpGatewayInitializer initializer = new HttpGatewayInitializer(new ApiRouter(backend),
                config.valueBytesMax() + BODY_SLACK_BYTES, config.valueBytesMax(),
                config.requestTimeoutMillis() + HttpGatewayHandler.ANSWER_SLACK_MILLIS);
        try {
            this.server = new TcpServer(group, bind, "the HTTP gateway", CONNECTIONS_MAX,
                    bootstrap -> bootstrap.option(ChannelOption.SO_BACKLOG, BACKLOG), initializer);
        } catch (IOException e) {
            Throwable cause = e.getCause();
            throw new UncheckedIOException(e.getMessage(),
                    cause instanceof IOException io ? io : new IOException(cause));
        }
    }

    /** The address actually bound (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Whether the gateway still accepts connections. */
    boolean isListening() {
        return server.isListening();
    }

    /**
     * Stops accepting and closes every open connection; requests in flight are dropped unanswered. Off the group's
     * loops it waits (bounded) for the sockets to close.
     */
    @Override
    public void close() {
        server.close();
    }
}
