package io.rattan.node.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.rattan.core.node.NodeConfig;
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

    private final Channel serverChannel;
    private final ChannelGroup connections;

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException when the address cannot be bound (in use, not local, no permission)
     */
    public HttpGateway(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend) {
        NodeConfig config = backend.config();
        this.connections = new DefaultChannelGroup("rattan-http", group.next());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(serverChannelClass(group))
                .option(ChannelOption.SO_BACKLOG, 256)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new HttpGatewayInitializer(new ApiRouter(backend), connections,
                        config.valueBytesMax() + BODY_SLACK_BYTES, config.valueBytesMax(),
                        config.requestTimeoutMillis() + HttpGatewayHandler.ANSWER_SLACK_MILLIS));
        ChannelFuture bound = bootstrap.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            String message = "cannot bind the HTTP gateway to " + bind + ": " + cause.getMessage();
            throw cause instanceof IOException
                    ? new UncheckedIOException(message, (IOException) cause)
                    : new UncheckedIOException(message, new IOException(cause));
        }
        this.serverChannel = bound.channel();
    }

    /** The address actually bound (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Stops accepting and closes every open connection; requests in flight are dropped unanswered. */
    @Override
    public void close() {
        if (serverChannel.eventLoop().inEventLoop()) {
            // Waiting here would block the loop that must do the closing.
            serverChannel.close();
            connections.close();
            return;
        }
        serverChannel.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
    }

    private static Class<? extends ServerChannel> serverChannelClass(EventLoopGroup group) {
        return group instanceof EpollEventLoopGroup ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
