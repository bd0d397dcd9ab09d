package io.rattan.node.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.ReferenceCountUtil;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.net.Address;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.Frames;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real node's {@link Transport}: one persistent outbound TCP connection per peer address, opened lazily on the
 * first send and reopened on the first send after it fails or closes.
 *
 * <p>Every outbound channel is registered on the node's own loop, the loop {@link #send} is called on, so connection
 * state is confined to that thread and needs no locks. A frame is encoded on the caller's thread and written at once;
 * one flush per connection runs after the current loop task, so a burst of sends costs one system call per peer.
 *
 * <p>Nothing here retries or times out a message: a frame that cannot be delivered is dropped and counted, and core's
 * request timeouts see the loss. Frames are dropped while a connection is being set up and more than
 * {@link #PENDING_FRAMES_MAX} frames (or {@link #PENDING_BYTES_MAX} bytes) are queued for it, when a connection's
 * write buffer is above its high-water mark (the peer is not reading), and when a connection fails with frames
 * queued.
 *
 * <p>{@link #halt} models a crash: from the moment it is called nothing more reaches a socket (asserted by
 * {@link #framesSentAfterHalt}); {@link #close} is the graceful variant that lets written frames drain first.
 *
 * <p>Outbound connections carry frames one way; anything a peer sends back on them is discarded.
 */
public final class NettyTransport implements Transport, AutoCloseable {

    /** Most frames queued for one peer while its connection is being set up. */
    public static final int PENDING_FRAMES_MAX = 1024;
    /** Most bytes queued for one peer while its connection is being set up. */
    public static final int PENDING_BYTES_MAX = 4 << 20;
    /** Above this many bytes buffered on a connection, frames to that peer are dropped until it drains. */
    public static final int WRITE_BUFFER_HIGH_BYTES = 4 << 20;
    /** A connection that was above the high-water mark takes frames again once it drains below this. */
    public static final int WRITE_BUFFER_LOW_BYTES = 1 << 20;
    /** How long a connection may take to open before its queued frames are dropped. */
    public static final int CONNECT_TIMEOUT_MILLIS = 3_000;

    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final EventLoop loop;
    private final MessageCodec codec;
    private final String localName;
    private final TransportListener listener;
    private final Bootstrap bootstrap;

    // Confined to the loop.
    private final Map<Address, Connection> connections = new HashMap<>();
    private final List<Connection> toFlush = new ArrayList<>();
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushAll;

    private volatile boolean closed;
    private volatile boolean halted;
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final LongAdder framesSent = new LongAdder();
    private final LongAdder framesDropped = new LongAdder();
    private final LongAdder framesSentAfterHalt = new LongAdder();

    /**
     * @param loop      the node's loop: {@link #send} must be called on it, and connections are registered on it
     * @param codec     encodes envelopes into frame bodies
     * @param localName names this node in logs (its short id)
     * @param listener  receives byte and drop counts
     */
    public NettyTransport(EventLoop loop, MessageCodec codec, String localName, TransportListener listener) {
        if (loop == null || codec == null || localName == null || listener == null) {
            throw new IllegalArgumentException("loop, codec, localName and listener are required");
        }
        this.loop = loop;
        this.codec = codec;
        this.localName = localName;
        this.listener = listener;
        ChannelHandler guard = new OutboundGuard();
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(EventLoops.socketChannelClass(loop))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(WRITE_BUFFER_LOW_BYTES, WRITE_BUFFER_HIGH_BYTES))
                .handler(guard);
    }

    /** Encodes and writes {@code envelope} to the peer at {@code to}. Must be called on the node's loop. */
    @Override
    public void send(Address to, Envelope envelope) {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("send must be called on the node's loop");
        }
        if (closed || halted) {
            drop(DropReason.CLOSED);
            return;
        }
        byte[] body;
        try {
            body = codec.encode(envelope);
        } catch (RuntimeException e) {
            log.warn("{}: cannot encode {} for {}: {}", localName, envelope.body().type(), to, e.toString());
            drop(DropReason.UNENCODABLE);
            return;
        }
        Connection c = connections.get(to);
        if (c == null) {
            c = connect(to);
        }
        c.send(body);
    }

    /**
     * Crashes the transport: from this call on no byte reaches a socket, whatever is queued or buffered is discarded,
     * and every connection is closed. Any thread; returns once the connections are closed (or the loop is gone).
     */
    public void halt() {
        halted = true;
        onLoopAndWait(() -> {
            for (Connection c : new ArrayList<>(connections.values())) {
                c.abort(DropReason.CLOSED);
            }
        });
    }

    /**
     * Closes gracefully: frames already sent (including those queued while a connection is being set up) drain
     * before each connection closes; later sends are dropped. Off the loop it waits up to two seconds for the
     * connections to close; on the loop it returns at once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Filled on the loop, read here: the loop task may outlive the wait below.
        List<ChannelFuture> closing = new CopyOnWriteArrayList<>();
        onLoopAndWait(() -> {
            for (Connection c : new ArrayList<>(connections.values())) {
                closing.add(c.closeGracefully());
            }
        });
        if (!loop.inEventLoop()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
            for (ChannelFuture f : closing) {
                f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Open or opening connections. */
    public int connectionCount() {
        return connectionCount.get();
    }

    /** Frames written to a connection (handed to Netty on their way to the socket). */
    public long framesSent() {
        return framesSent.sum();
    }

    /** Frames dropped without being written, for any {@link DropReason}. */
    public long framesDropped() {
        return framesDropped.sum();
    }

    /** Frames that reached a connection after {@link #halt} began (and were discarded there). Must stay 0. */
    public long framesSentAfterHalt() {
        return framesSentAfterHalt.sum();
    }

    private Connection connect(Address to) {
        ChannelFuture connecting = bootstrap.connect(InetSocketAddress.createUnresolved(to.host(), to.port()));
        Connection c = new Connection(to, connecting.channel());
        connections.put(to, c);
        connectionCount.incrementAndGet();
        // The listeners may run at once when connect fails early; c is registered by then, so they find it.
        connecting.channel().closeFuture().addListener(f -> c.lost("closed"));
        connecting.addListener(f -> {
            if (f.isSuccess()) {
                c.connected();
            } else {
                log.debug("{}: cannot connect to {}: {}", localName, to, f.cause().toString());
                c.lost("connect failed");
            }
        });
        return c;
    }

    private void drop(DropReason reason) {
        framesDropped.increment();
        listener.frameDropped(reason);
    }

    private void needsFlush(Connection c) {
        if (!c.queuedForFlush) {
            c.queuedForFlush = true;
            toFlush.add(c);
        }
        if (!flushScheduled) {
            flushScheduled = true;
            try {
                loop.execute(flushTask);
            } catch (RejectedExecutionException e) {
                flushAll();
            }
        }
    }

    private void flushAll() {
        flushScheduled = false;
        for (Connection c : toFlush) {
            c.queuedForFlush = false;
            // After a halt, frames written but not yet flushed are lost with the connection, as in a crash.
            if (!c.dead && !halted) {
                c.channel.flush();
            }
        }
        toFlush.clear();
    }

    private void onLoopAndWait(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.submit(task).awaitUninterruptibly(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The loop is gone, and with it every channel registered on it.
            log.debug("{}: loop already shut down", localName);
        }
    }

    /** One peer's connection. Confined to the loop. */
    private final class Connection {
        final Address to;
        final Channel channel;
        ArrayDeque<byte[]> pending = new ArrayDeque<>();
        long pendingBytes;
        boolean active;
        boolean dead;
        boolean queuedForFlush;

        Connection(Address to, Channel channel) {
            this.to = to;
            this.channel = channel;
        }

        void send(byte[] body) {
            if (dead) {
                drop(DropReason.CONNECTION_LOST);
            } else if (!active) {
                if (pending.size() >= PENDING_FRAMES_MAX || pendingBytes + body.length > PENDING_BYTES_MAX) {
                    drop(DropReason.QUEUE_FULL);
                } else {
                    pending.add(body);
                    pendingBytes += body.length;
                }
            } else if (!channel.isWritable()) {
                drop(DropReason.UNWRITABLE);
            } else {
                write(body);
            }
        }

        void connected() {
            if (dead) {
                return;
            }
            if (halted) {
                abort(DropReason.CLOSED);
                return;
            }
            active = true;
            log.debug("{}: connected to {}", localName, to);
            for (byte[] body : pending) {
                write(body);
            }
            pending = null;
            pendingBytes = 0;
            if (closed) {
                // Closed gracefully while connecting: what was queued drains, then the connection closes.
                drainAndClose();
            }
        }

        void write(byte[] body) {
            channel.write(Frames.prefixed(channel.alloc(), body), channel.voidPromise());
            needsFlush(this);
        }

        /** The connection failed or closed: forget it, so that the next send reconnects. */
        void lost(String why) {
            if (dead) {
                return;
            }
            log.debug("{}: connection to {} lost ({}), {} queued frames dropped", localName, to, why,
                    pending == null ? 0 : pending.size());
            forget(DropReason.CONNECTION_LOST);
            channel.close();
        }

        void abort(DropReason reason) {
            if (dead) {
                return;
            }
            forget(reason);
            channel.close();
        }

        ChannelFuture closeGracefully() {
            if (!dead && active) {
                drainAndClose();
            }
            // Still connecting: connected() drains and closes, and a failed connect closes the channel anyway.
            return channel.closeFuture();
        }

        private void drainAndClose() {
            forget(DropReason.CLOSED);
            // An empty write completes after every earlier write has reached the socket.
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }

        private void forget(DropReason reason) {
            dead = true;
            if (pending != null) {
                for (int i = pending.size(); i > 0; i--) {
                    drop(reason);
                }
                pending = null;
                pendingBytes = 0;
            }
            if (connections.get(to) == this) {
                connections.remove(to);
            }
            connectionCount.decrementAndGet();
        }
    }

    /**
     * The last handler before the socket on every outbound channel: counts bytes, enforces the halt (no write or
     * flush passes once it began), and discards whatever a peer sends back.
     */
    @ChannelHandler.Sharable
    private final class OutboundGuard extends ChannelDuplexHandler {

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (halted) {
                framesSentAfterHalt.increment();
                ReferenceCountUtil.release(msg);
                promise.tryFailure(new ClosedChannelException());
                return;
            }
            if (msg instanceof ByteBuf buf && buf.isReadable()) {
                framesSent.increment();
                listener.bytesSent(buf.readableBytes());
            }
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // Nothing buffered reaches the socket once the halt began; closing the channel discards it.
            if (!halted) {
                ctx.flush();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("{}: outbound connection {} failed: {}", localName, ctx.channel().remoteAddress(),
                    cause.toString());
            ctx.close();
        }
    }
}
