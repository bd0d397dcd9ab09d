package io.rattan.node.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import com.google.common.collect.ConcurrentHashMultiset;
import com.google.common.collect.Multiset;
import io.netty.util.concurrent.Future;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.TransportListener.Refusal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The one server bootstrap of the node, under the peer server and both gateways: binds a listening socket on a
 * group (epoll or NIO channels to match it), keeps track of the open connections, refuses connections beyond a
 * bound in total and a bound per source IP (closed as soon as accepted, counted), and hands each accepted one to the
 * protocol's initializer.
 *
 * <p>Every connection gets {@code TCP_NODELAY}; a protocol adds its own options. The constructor binds
 * synchronously. {@link #close} may be called from any thread; it waits (bounded) for the sockets to close only when
 * not called on one of the group's loops, where waiting would block the loop that must do the closing.
 */
public final class TcpServer implements AutoCloseable {

    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final LongAdder connectionsAccepted = new LongAdder();
    // Open connections per source IP; an IP leaves the multiset with its last connection, so it is bounded by the
    // open connections.
    private final Multiset<Object> perIp = ConcurrentHashMultiset.create();
    private final ConnectionLimits limits;
    private final TransportListener listener;

    /**
     * Binds and starts accepting.
     *
     * @param group          runs the server and its connections
     * @param bind           where to listen; port 0 picks a free port (see {@link #localAddress})
     * @param name           names the server in errors, e.g. "the peer server"
     * @param limits         connections open at once, in total and per source IP; one more is closed as soon as it
     *                       is accepted
     * @param listener       counts the connections refused
     * @param options        adds the protocol's own options to the bootstrap
     * @param initializer    builds each accepted connection's pipeline; must be sharable
     * @throws IOException when the address cannot be bound; its cause is the bind failure
     */
    public TcpServer(EventLoopGroup group, InetSocketAddress bind, String name, ConnectionLimits limits,
                     TransportListener listener, Consumer<ServerBootstrap> options, ChannelHandler initializer)
            throws IOException {
        this.limits = limits;
        this.listener = listener;
        this.group = group;
        this.connections = new DefaultChannelGroup(name, group.next());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group, group)
                .channel(EventLoops.serverChannelClass(group))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accept(ch, initializer);
                    }
                });
        options.accept(bootstrap);
        ChannelFuture bound = bootstrap.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot bind " + name + " to " + bind + ": " + bound.cause().getMessage(),
                    bound.cause());
        }
        this.serverChannel = bound.channel();
    }

    private void accept(Channel ch, ChannelHandler initializer) {
        connectionsAccepted.increment();
        if (connections.size() >= limits.total()) {
            listener.refused(Refusal.CONNECTIONS);
            ch.close();
            return;
        }
        Object ip = RateGate.sourceIp(ch.remoteAddress());
        if (perIp.add(ip, 1) >= limits.perIp()) {
            perIp.remove(ip);
            listener.refused(Refusal.CONNECTIONS_PER_IP);
            ch.close();
            return;
        }
        ch.closeFuture().addListener(closed -> perIp.remove(ip));
        connections.add(ch);
        ch.pipeline().addLast(initializer);
    }

    /** The address actually bound (the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Connections accepted since the server started, those refused beyond the bound included. */
    public long connectionsAccepted() {
        return connectionsAccepted.sum();
    }

    /** Whether the server still accepts connections: false once {@link #close} has closed its socket. */
    public boolean isListening() {
        return serverChannel.isOpen();
    }

    /** Connections open now. */
    public int connectionCount() {
        return connections.size();
    }

    /** Source IPs with a connection open now. */
    public int sourceCount() {
        return perIp.elementSet().size();
    }

    /** The most bytes waiting to be written on any one connection now: a non-reading client's backlog. */
    public long pendingWriteBytesMax() {
        long max = 0;
        for (Channel ch : connections) {
            io.netty.channel.ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
            if (out != null) {
                max = Math.max(max, out.totalPendingWriteBytes());
            }
        }
        return max;
    }

    /** Closes every accepted connection but keeps listening. */
    public void closeConnections() {
        await(connections.close());
    }

    /** Stops listening and closes every connection, without waiting for anything to drain. */
    @Override
    public void close() {
        await(serverChannel.close());
        await(connections.close());
    }

    private void await(Future<?> future) {
        if (!EventLoops.inAnyLoop(group)) {
            future.awaitUninterruptibly(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }
}
