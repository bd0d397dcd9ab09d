package io.rattan.node.transport;

import com.google.common.net.InetAddresses;
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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.Challenge;
import io.rattan.core.msg.Messages.ChallengeAnswer;
import io.rattan.core.msg.Messages.Hello;
import io.rattan.core.net.Contact;
import io.rattan.core.net.Address;
import io.rattan.node.limits.Limits;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.Frames;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * request timeouts see the loss. While a connection is being set up its frames queue, at most
 * {@link #PENDING_FRAMES_MAX} frames and {@link #PENDING_BYTES_MAX} bytes for one peer and
 * {@link #PENDING_BYTES_TOTAL_MAX} bytes for all: past a bound the <em>oldest</em> queued frames are shed
 * ({@link DropReason#SHED}) to make room, since the newest are the ones whose requests have time left. Frames are also
 * dropped when a connection's write buffer is above its high-water mark (the peer is not reading), and when a
 * connection fails with frames queued.
 *
 * <p>At most {@code outboundMax} connections are open at once: opening one more first closes the least recently used
 * (gracefully when it was welcomed, at once when it was still being set up), counted as
 * {@link TransportListener.Refusal#OUTBOUND_CONNECTIONS}. So a peer that names many addresses as the origins of its
 * requests cannot make this node hold a connection, and a queue, for each.
 *
 * <p>{@link #halt} models a crash: from the moment it is called nothing more reaches a socket (asserted by
 * {@link #framesSentAfterHalt}); {@link #close} is the graceful variant that lets written frames drain first.
 *
 * <p>Every connection starts with the peer handshake (docs/protocol.md): this node's {@code Hello} goes first, and
 * nothing else is sent until the listener answers with a {@code Welcome}, which it does only once this node has
 * proven its claim (by answering the listener's {@code Challenge}, which arrives on the {@link PeerServer} over a
 * connection the listener dials back). So an address where no Rattan node listens (a victim named in a forged
 * request) receives at most one {@code Hello} per {@link #HELLO_INTERVAL_NANOS}: frames for it wait, and are dropped
 * with the connection when no {@code Welcome} comes within {@link #HANDSHAKE_TIMEOUT_MILLIS}; later sends to it are
 * dropped ({@link DropReason#UNVERIFIED}) until the interval has passed. Challenges and answers to challenges are
 * handshake frames: they pass before the {@code Welcome}, but a connection not yet welcomed carries at most
 * {@link #CHALLENGES_BEFORE_WELCOME_MAX} challenges, and a challenge does not dial an address within its hello interval
 * either: a stranger who claims an address in hello after hello (it can claim only its own IP) draws one hello and one
 * challenge per interval to it, however many connections it opens.
 *
 * <p>On an outbound connection a peer may send back only its {@code Welcome}; anything else closes it.
 */
public final class NettyTransport implements Transport, AutoCloseable {

    /** Most frames queued for one peer while its connection is being set up. */
    public static final int PENDING_FRAMES_MAX = 1024;
    /** Most bytes queued for one peer while its connection is being set up. */
    public static final int PENDING_BYTES_MAX = 4 << 20;
    /** Most bytes queued for all peers together while their connections are being set up. */
    public static final long PENDING_BYTES_TOTAL_MAX = 64L << 20;
    /** Most {@code Challenge} frames written on a connection the listener has not welcomed yet. */
    public static final int CHALLENGES_BEFORE_WELCOME_MAX = 1;
    /** Above this many bytes buffered on a connection, frames to that peer are dropped until it drains. */
    public static final int WRITE_BUFFER_HIGH_BYTES = 4 << 20;
    /** A connection that was above the high-water mark takes frames again once it drains below this. */
    public static final int WRITE_BUFFER_LOW_BYTES = 1 << 20;
    /** How long a connection may take to open before its queued frames are dropped. */
    public static final int CONNECT_TIMEOUT_MILLIS = 3_000;
    /** How long a connection may wait for the listener's {@code Welcome} before it is closed and its frames dropped. */
    public static final int HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    /** At most one {@code Hello} per this interval to an address that has not answered one with a {@code Welcome}. */
    public static final long HELLO_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Most addresses remembered as having left a {@code Hello} unanswered; the oldest are forgotten first. */
    static final int UNANSWERED_MAX = 4096;
    // The only frame a listener sends back: a Welcome, 11 bytes.
    private static final int INBOUND_FRAME_BYTES_MAX = 64;
    private static final AttributeKey<Connection> CONNECTION = AttributeKey.valueOf("rattan.connection");

    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final EventLoop loop;
    private final int outboundMax;
    private final MessageCodec codec;
    private final String localName;
    private final TransportListener listener;
    private final Bootstrap bootstrap;

    // Confined to the loop. In access order: the first entry is the least recently used connection.
    private final LinkedHashMap<Address, Connection> connections = new LinkedHashMap<>(16, 0.75f, true);
    // Bytes queued on all connections being set up.
    private long pendingBytesTotal;
    private final List<Connection> toFlush = new ArrayList<>();
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushAll;
    // When a Hello went to an address that has not welcomed us since; insertion order, so the oldest go first.
    private final Map<Address, Long> unanswered = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Address, Long> eldest) {
            return size() > UNANSWERED_MAX;
        }
    };
    private volatile Contact self;
    private volatile byte[] helloFrame;
    private volatile int handshakeTimeoutMillis = HANDSHAKE_TIMEOUT_MILLIS;

    private volatile boolean closed;
    private volatile boolean halted;
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final LongAdder framesSent = new LongAdder();
    private final LongAdder framesDropped = new LongAdder();
    private final LongAdder framesSentAfterHalt = new LongAdder();
    private final LongAdder welcomes = new LongAdder();
    private final LongAdder evicted = new LongAdder();

    /** A transport with the default bound on outbound connections ({@link Limits#OUTBOUND_CONNECTIONS_MAX}). */
    public NettyTransport(EventLoop loop, MessageCodec codec, String localName, TransportListener listener) {
        this(loop, codec, localName, listener, Limits.OUTBOUND_CONNECTIONS_MAX);
    }

    /**
     * @param loop        the node's loop: {@link #send} must be called on it, and connections are registered on it
     * @param codec       encodes envelopes into frame bodies
     * @param localName   names this node in logs (its short id)
     * @param listener    receives byte and drop counts
     * @param outboundMax connections open at once; one more closes the least recently used
     */
    public NettyTransport(EventLoop loop, MessageCodec codec, String localName, TransportListener listener,
                          int outboundMax) {
        if (loop == null || codec == null || localName == null || listener == null) {
            throw new IllegalArgumentException("loop, codec, localName and listener are required");
        }
        if (outboundMax < 1) {
            throw new IllegalArgumentException("outboundMax must be positive, got " + outboundMax);
        }
        this.outboundMax = outboundMax;
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
                .handler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast("guard", guard)
                                .addLast("framing", new LengthFieldBasedFrameDecoder(INBOUND_FRAME_BYTES_MAX + 4,
                                        0, 4, 0, 4))
                                .addLast("welcome", new WelcomeHandler());
                    }
                });
    }

    /**
     * Names this node in the {@code Hello} that opens each connection: its id, its listening address (an IP literal)
     * and its gateway port, as the envelopes it sends name it. Must be called, on any thread, before the first send.
     */
    public void identity(Contact contact) {
        if (contact == null) {
            throw new IllegalArgumentException("contact is required");
        }
        this.helloFrame = codec.encode(new Envelope(contact, 0, new Hello(MessageCodec.VERSION)));
        this.self = contact;
    }

    /** Shortens the handshake timeout, for tests that wait for it. */
    void handshakeTimeoutMillis(int millis) {
        this.handshakeTimeoutMillis = millis;
    }

    /** This node's contact as its {@code Hello} claims it, or null before {@link #identity}. */
    public Contact identity() {
        return self;
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
        if (self == null) {
            throw new IllegalStateException("identity must be set before the first send");
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
            if (!InetAddresses.isInetAddress(to.host())) {
                // Peers are known by IP literals only: a name would be resolved, blocking, on this loop.
                drop(DropReason.NOT_AN_IP);
                return;
            }
            if (recentlyUnanswered(to)) {
                drop(DropReason.UNVERIFIED);
                return;
            }
            c = connect(to);
        }
        c.send(body);
    }

    /**
     * Sends a handshake {@code Challenge} with {@code nonce} to the node that claims to listen at {@code claimed}, over
     * this node's own connection to it (opened if need be, whatever the {@code Hello} interval: the host at that IP
     * has just connected to us). On the loop.
     */
    void challenge(Address claimed, long nonce) {
        if (closed || halted) {
            return;
        }
        Connection c = connections.get(claimed);
        if (c == null) {
            if (recentlyUnanswered(claimed)) {
                // Whoever claims this address has not answered our last hello there: one per interval, whatever
                // number of hellos claim it.
                drop(DropReason.UNVERIFIED);
                return;
            }
            // The claim's host is the IP literal the claimant connected from (PeerFrameHandler checked it).
            c = connect(claimed);
        }
        c.challenge(codec.encode(new Envelope(self, nonce, new Challenge())));
    }

    /**
     * Answers a {@code Challenge} with its {@code nonce} on this node's own connection to {@code challenger}, the
     * connection whose claim it tests. Nothing is sent when there is no such connection: an answer never opens one.
     */
    void answerChallenge(Address challenger, long nonce) {
        Connection c = connections.get(challenger);
        // Even while closing: a connection being closed gracefully drains once its handshake completes.
        if (c == null || halted) {
            return;
        }
        c.sendHandshake(codec.encode(new Envelope(self, nonce, new ChallengeAnswer())));
    }

    /** Handshakes completed: connections a listener welcomed. */
    public long welcomes() {
        return welcomes.sum();
    }

    /** Connections closed to keep within the outbound bound, the least recently used first. */
    public long connectionsEvicted() {
        return evicted.sum();
    }

    private boolean recentlyUnanswered(Address to) {
        Long at = unanswered.get(to);
        if (at == null) {
            return false;
        }
        if (System.nanoTime() - at >= HELLO_INTERVAL_NANOS) {
            unanswered.remove(to);
            return false;
        }
        return true;
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

    /** Envelope frames written to a connection (handed to Netty on their way to the socket); handshakes apart. */
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
        if (connections.size() >= outboundMax) {
            evictLeastRecentlyUsed();
        }
        ChannelFuture connecting = bootstrap.connect(new InetSocketAddress(InetAddresses.forString(to.host()), to.port()));
        Connection c = new Connection(to, connecting.channel());
        connecting.channel().attr(CONNECTION).set(c);
        connections.put(to, c);
        connectionCount.incrementAndGet();
        // The listeners may run at once when connect fails early; c is registered by then, so they find it.
        connecting.channel().closeFuture().addListener(f -> c.lost("closed"));
        connecting.addListener(f -> {
            if (f.isSuccess()) {
                c.connected();
                loop.schedule(c::handshakeTimedOut, handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
            } else {
                log.debug("{}: cannot connect to {}: {}", localName, to, f.cause().toString());
                c.lost("connect failed");
            }
        });
        return c;
    }

    /** Closes the connection used longest ago, to stay within {@code outboundMax}. */
    private void evictLeastRecentlyUsed() {
        Connection lru = connections.values().iterator().next();
        evicted.increment();
        listener.refused(TransportListener.Refusal.OUTBOUND_CONNECTIONS);
        log.debug("{}: {} outbound connections open; closing the least recently used, to {}", localName,
                connections.size(), lru.to);
        if (lru.active) {
            // Welcomed: what was written drains first, as in a graceful close.
            lru.drainAndClose();
        } else {
            lru.abort(DropReason.CONNECTION_LOST);
        }
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
        // Handshake frames (challenges, answers) waiting for the TCP connection; they go right after our Hello.
        List<byte[]> handshake = new ArrayList<>(2);
        // Challenges sent (or waiting) on this connection before its Welcome.
        int challenges;
        boolean connectedTcp;
        // Welcomed by the listener: envelopes may go.
        boolean active;
        boolean dead;
        boolean queuedForFlush;

        Connection(Address to, Channel channel) {
            this.to = to;
            this.channel = channel;
        }

        void sendHandshake(byte[] body) {
            if (dead) {
                return;
            }
            if (connectedTcp) {
                write(body);
            } else if (handshake.size() < 16) {
                handshake.add(body);
            }
        }

        /** A challenge of a claim to this address: at most {@link #CHALLENGES_BEFORE_WELCOME_MAX} before the welcome. */
        void challenge(byte[] body) {
            if (!active && challenges >= CHALLENGES_BEFORE_WELCOME_MAX) {
                drop(DropReason.UNVERIFIED);
                return;
            }
            if (!active) {
                challenges++;
            }
            sendHandshake(body);
        }

        void send(byte[] body) {
            if (dead) {
                drop(DropReason.CONNECTION_LOST);
            } else if (!active) {
                queue(body);
            } else if (!channel.isWritable()) {
                drop(DropReason.UNWRITABLE);
            } else {
                writeEnvelope(body);
            }
        }

        /**
         * Queues a frame until the welcome; past a bound (this peer's frames or bytes, or all peers' bytes) the oldest
         * frames queued here are shed first, and the new frame is dropped only when it alone is over the bound.
         */
        void queue(byte[] body) {
            while (!pending.isEmpty() && (pending.size() >= PENDING_FRAMES_MAX
                    || pendingBytes + body.length > PENDING_BYTES_MAX
                    || pendingBytesTotal + body.length > PENDING_BYTES_TOTAL_MAX)) {
                byte[] oldest = pending.poll();
                pendingBytes -= oldest.length;
                pendingBytesTotal -= oldest.length;
                drop(DropReason.SHED);
            }
            if (pendingBytes + body.length > PENDING_BYTES_MAX
                    || pendingBytesTotal + body.length > PENDING_BYTES_TOTAL_MAX) {
                drop(DropReason.QUEUE_FULL);
                return;
            }
            pending.add(body);
            pendingBytes += body.length;
            pendingBytesTotal += body.length;
        }

        void writeEnvelope(byte[] body) {
            framesSent.increment();
            write(body);
        }

        void connected() {
            if (dead) {
                return;
            }
            if (halted) {
                abort(DropReason.CLOSED);
                return;
            }
            connectedTcp = true;
            log.debug("{}: connected to {}, sending hello", localName, to);
            unanswered.putIfAbsent(to, System.nanoTime());
            write(helloFrame);
            for (byte[] body : handshake) {
                write(body);
            }
            handshake = List.of();
        }

        /** The listener proved willing: what waited goes, in order, and later frames go at once. */
        void welcomed() {
            if (dead || active) {
                return;
            }
            active = true;
            unanswered.remove(to);
            welcomes.increment();
            log.debug("{}: welcomed by {}", localName, to);
            for (byte[] body : pending) {
                writeEnvelope(body);
            }
            pending = null;
            pendingBytesTotal -= pendingBytes;
            pendingBytes = 0;
            if (closed) {
                // Closed gracefully while connecting: what was queued drains, then the connection closes.
                drainAndClose();
            }
        }

        void handshakeTimedOut() {
            if (!dead && !active) {
                log.debug("{}: no welcome from {} within {} ms", localName, to, handshakeTimeoutMillis);
                abort(DropReason.UNVERIFIED);
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
            // Still connecting or handshaking: welcomed() drains and closes; a failed connect or handshake closes the
            // channel anyway.
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
                pendingBytesTotal -= pendingBytes;
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
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("{}: outbound connection {} failed: {}", localName, ctx.channel().remoteAddress(),
                    cause.toString());
            ctx.close();
        }
    }

    /** Reads what a listener sends back on an outbound connection: its {@code Welcome}, and nothing else. */
    private final class WelcomeHandler extends io.netty.channel.ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                Connection c = ctx.channel().attr(CONNECTION).get();
                Envelope e = codec.decode(io.netty.buffer.ByteBufUtil.getBytes((ByteBuf) msg));
                if (c != null && e.body().type() == MessageType.WELCOME) {
                    c.welcomed();
                } else {
                    log.debug("{}: {} sent a {} on our connection; closing it", localName,
                            ctx.channel().remoteAddress(), e.body().type());
                    ctx.close();
                }
            } catch (RuntimeException e) {
                log.debug("{}: undecodable frame from {}: {}", localName, ctx.channel().remoteAddress(), e.toString());
                ctx.close();
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("{}: outbound connection {} failed: {}", localName, ctx.channel().remoteAddress(),
                    cause.toString());
            ctx.close();
        }
    }
}
