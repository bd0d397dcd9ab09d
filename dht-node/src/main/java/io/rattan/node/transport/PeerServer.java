package io.rattan.node.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.Future;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Accepts peer connections and hands every frame that arrives, decoded, to the node.
 *
 * <p>The server and all its connections live on the node's own loop, so {@code consumer} is called on that loop with
 * no hop, in arrival order per connection. A connection that sends an undecodable frame or announces a frame above the
 * codec's limit is closed (logged at debug, counted); the others are not affected. At most
 * {@link #CONNECTIONS_MAX} connections are open at once; more are closed on accept.
 *
 * <p>The constructor binds synchronously. {@link #close} may be called from any thread but the loop.
 */
public final class PeerServer implements AutoCloseable {

    /** Most inbound peer connections open at once. */
    public static final int CONNECTIONS_MAX = 4096;

    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final LongAdder framesRejected = new LongAdder();
    private final LongAdder framesReceived = new LongAdder();
    private final LongAdder connectionsAccepted = new LongAdder();

    /**
     * @param loop      the node's loop: the server, its connections and {@code consumer} run on it
     * @param bind      where to listen; port 0 picks a free port (see {@link #localAddress})
     * @param codec     decodes frame bodies; its {@code frameBytesMax} bounds the accepted frame length
     * @param consumer  receives each decoded envelope, on {@code loop}; it must not block
     * @param localName names this node in logs
     * @param listener  receives byte and rejection counts
     * @throws IOException when the address cannot be bound
     */
    public PeerServer(EventLoop loop, InetSocketAddress bind, MessageCodec codec, Consumer<Envelope> consumer,
                      String localName, TransportListener listener) throws IOException {
        if (loop == null || bind == null || codec == null || consumer == null || localName == null
                || listener == null) {
            throw new IllegalArgumentException("every argument is required");
        }
        this.connections = new DefaultChannelGroup("peer-connections-" + localName, loop);
        TransportListener counting = new TransportListener() {
            @Override
            public void bytesReceived(long bytes) {
                listener.bytesReceived(bytes);
            }

            @Override
            public void frameRejected() {
                framesRejected.increment();
                listener.frameRejected();
            }
        };
        Consumer<Envelope> countingConsumer = envelope -> {
            framesReceived.increment();
            consumer.accept(envelope);
        };
        ByteCountingHandler byteCounter = new ByteCountingHandler(counting);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop, loop)
                .channel(EventLoops.serverChannelClass(loop))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connectionsAccepted.increment();
                        if (connections.size() >= CONNECTIONS_MAX) {
                            ch.close();
                            return;
                        }
                        connections.add(ch);
                        ch.pipeline()
                                .addLast("bytes", byteCounter)
                                .addLast("framing", Frames.newFrameDecoder(codec.frameBytesMax()))
                                .addLast("peer", new PeerFrameHandler(codec, countingConsumer, localName, counting));
                    }
                });
        ChannelFuture bound = bootstrap.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot listen for peers on " + bind + ": " + bound.cause().getMessage(),
                    bound.cause());
        }
        this.serverChannel = bound.channel();
    }

    /** The address actually bound (the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Frames refused: undecodable, or announced above the limit. */
    public long framesRejected() {
        return framesRejected.sum();
    }

    /** Frames decoded and handed to the consumer. */
    public long framesReceived() {
        return framesReceived.sum();
    }

    /** Connections accepted since the server started. */
    public long connectionsAccepted() {
        return connectionsAccepted.sum();
    }

    /** Connections open now. */
    public int connectionCount() {
        return connections.size();
    }

    /** Closes every accepted connection but keeps listening; for tests of the peers' reconnection. */
    void closeConnections() {
        await(connections.close());
    }

    /**
     * Stops listening and closes every connection, without waiting for anything to drain. Off the loop it waits
     * (bounded) for the sockets to close; on the loop it cannot wait, and returns at once.
     */
    @Override
    public void close() {
        await(serverChannel.close());
        await(connections.close());
    }

    private void await(Future<?> future) {
        if (!serverChannel.eventLoop().inEventLoop()) {
            future.awaitUninterruptibly(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }
}
