package io.rattan.node.gateway.http;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.permanent.PermanentValues;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.CountingListener;
import io.rattan.node.netty.TcpServer;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The HTTP/JSON gateway of one node: serves the HTTP API of DESIGN.md ({@code /v1/keys/...}, {@code /health},
 * {@code /ready}, {@code /node}, {@code /metrics}) by handing each request to a {@link GatewayBackend}.
 *
 * <p>Bodies are read up to the node's {@code valueBytesMax} plus {@link #BODY_SLACK_BYTES}; anything larger is
 * answered 413 and the connection closed. A put without {@code ?ttl=} lives {@value KeysResource#TTL_SECONDS_DEFAULT}
 * seconds (or the node's maximum TTL if that is shorter); a remove without {@code ?ttl=} keeps its tombstone for the
 * node's maximum TTL, so it outlives any value it removes.
 *
 * <p>{@link ConnectionLimits} bound the connections in total and per source IP, close a connection idle between
 * requests and one whose request is not whole by its deadline. A connection whose unread answers pass
 * {@link #WRITE_BUFFER_HIGH_BYTES} is not read from until they drain below {@link #WRITE_BUFFER_LOW_BYTES}. The
 * {@link ClientGuard} answers 429 with Retry-After above the client's rate or beyond its storage share.
 *
 * <p>The constructor binds before it returns. The event loop group belongs to the caller, who shuts it down after
 * {@link #close()}; it may be a NIO or an epoll group. Thread-safe; {@code close} is idempotent.
 */
public final class HttpGateway implements AutoCloseable {

    /** Body bytes read beyond the largest value, so that a slightly oversized value gets a precise 413. */
    public static final int BODY_SLACK_BYTES = 1024;

    /** Above this many bytes of unread answers, a connection is not read from. */
    public static final int WRITE_BUFFER_HIGH_BYTES = 1 << 20;
    /** ... until they drain below this. */
    public static final int WRITE_BUFFER_LOW_BYTES = 256 << 10;

    private static final int BACKLOG = 256;

    private final TcpServer server;
    private final CountingListener counting;

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException when the address cannot be bound (in use, not local, no permission); its cause is
     *                              the bind failure
     */
    public HttpGateway(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend) {
        this(group, bind, backend, ClientGuard.none(), ConnectionLimits.defaults(), TransportListener.NONE,
                HttpSurfaces.ALL, null, HttpAccess.OPEN);
    }

    /**
     * Binds and starts serving {@code serves}, within the given limits, keeping the values put with
     * {@code ?permanent=true} alive through {@code permanent} (null: this port keeps none, and refuses them), reached
     * as {@code access} says (TLS, tokens).
     *
     * @throws UncheckedIOException when the address cannot be bound (in use, not local, no permission); its cause is
     *                              the bind failure
     */
    public HttpGateway(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend, ClientGuard guard,
                       ConnectionLimits limits, TransportListener listener, HttpSurfaces serves,
                       PermanentValues permanent, HttpAccess access) {
        NodeConfig config = backend.config();
        this.counting = new CountingListener(listener);
        HttpGatewayInitializer initializer = new HttpGatewayInitializer(new ApiRouter(backend, guard, serves, permanent),
                config.valueBytesMax() + BODY_SLACK_BYTES, config.valueBytesMax(),
                config.requestTimeoutMillis() + HttpGatewayHandler.ANSWER_SLACK_MILLIS, guard, limits, counting,
                access);
        try {
            this.server = new TcpServer(group, bind, "the HTTP gateway", limits, counting,
                    bootstrap -> bootstrap
                            .option(ChannelOption.SO_BACKLOG, BACKLOG)
                            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                                    new WriteBufferWaterMark(WRITE_BUFFER_LOW_BYTES, WRITE_BUFFER_HIGH_BYTES)),
                    initializer);
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

    /** Refusals of one kind so far: connections over a bound, requests over a rate, timeouts. */
    public long refusals(TransportListener.Refusal refusal) {
        return counting.refusals(refusal);
    }

    /** Connections open now. */
    public int connectionCount() {
        return server.connectionCount();
    }

    /** The most bytes of unread answers waiting on any one connection now. */
    public long pendingWriteBytesMax() {
        return server.pendingWriteBytesMax();
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
