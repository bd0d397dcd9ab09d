package io.rattan.node.transport;

import com.google.common.net.InetAddresses;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.netty.Frames;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.PeerTls;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's outbound connection table: one {@link Connection} per peer address, each with the frames that wait
 * for its handshake, and what bounds them all, so that {@link NettyTransport} only decides <em>whether</em> a frame
 * may go and to which connection. Here: the per-peer and total queue bounds (shedding the oldest,
 * {@link DropReason#SHED}, or refusing one frame alone over a bound, {@link DropReason#QUEUE_FULL}), writability
 * ({@link DropReason#UNWRITABLE}), least-recently-used eviction past {@code outboundMax}, one flush per connection
 * after the current loop task, the closed and halted states every write checks, the refused connects, and the counters
 * the transport reports. Everything but those flags and counters is confined to the node's loop and needs no locks.
 */
final class OutboundConnections {

    // Logged under the transport's name, as before the split, so log configuration keeps applying.
    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);

    private final EventLoop loop;
    private final int outboundMax;
    private final String localName;
    private final TransportListener listener;
    private final HelloThrottle hellos;
    private final PeerVersions versions;
    private final Bootstrap bootstrap;
    // Told, on the loop, of each address whose listener refused a connection: nothing listens there now.
    private final Consumer<Address> refused;

    // Confined to the loop. In access order: the first entry is the least recently used connection.
    private final LinkedHashMap<Address, Connection> connections = new LinkedHashMap<>(16, 0.75f, true);
    // Bytes queued on all connections being set up.
    private long pendingBytesTotal;
    private final List<Connection> toFlush = new ArrayList<>();
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushAll;
    private volatile int handshakeTimeoutMillis = NettyTransport.HANDSHAKE_TIMEOUT_MILLIS;

    private volatile boolean closed;
    private volatile boolean halted;
    /** The address connections leave from; null: whichever the kernel picks. */
    private volatile InetAddress source;
    // The counters the transport reports, read from any thread.
    final AtomicInteger connectionCount = new AtomicInteger();
    final LongAdder framesSent = new LongAdder();
    final LongAdder framesDropped = new LongAdder();
    final LongAdder framesSentAfterHalt = new LongAdder();
    final LongAdder welcomes = new LongAdder();
    final LongAdder evicted = new LongAdder();

    OutboundConnections(EventLoop loop, MessageCodec codec, String localName, TransportListener listener,
                        int outboundMax, HelloThrottle hellos, PeerVersions versions, Supplier<PeerTls> tls,
                        Consumer<Address> refused) {
        this.loop = loop;
        this.refused = refused;
        this.outboundMax = outboundMax;
        this.localName = localName;
        this.listener = listener;
        this.hellos = hellos;
        this.versions = versions;
        this.bootstrap = OutboundPipeline.bootstrap(loop, this, codec, listener, localName, tls);
    }

    /** Outbound connections leave from {@code ip} (port any) when they go to an address of its family. */
    void source(InetAddress ip) {
        this.source = ip;
    }

    void handshakeTimeoutMillis(int millis) {
        this.handshakeTimeoutMillis = millis;
    }

    boolean closed() {
        return closed;
    }

    boolean halted() {
        return halted;
    }

    /** From now on later sends are dropped; connections being set up drain once welcomed. Any thread. */
    void markClosed() {
        closed = true;
    }

    /** From now on nothing reaches a socket. Any thread. */
    void markHalted() {
        halted = true;
    }

    /** The connection to {@code to}, or null when there is none (it failed, closed, or was never opened). */
    Connection get(Address to) {
        return connections.get(to);
    }

    /** Every connection, open or being set up; a copy, so that closing them while iterating is safe. */
    List<Connection> all() {
        return new ArrayList<>(connections.values());
    }

    /** Dials {@code to} (an IP literal), first closing the least recently used connection when at the bound. */
    Connection connect(Address to) {
        if (connections.size() >= outboundMax) {
            evictLeastRecentlyUsed();
        }
        InetAddress ip = InetAddresses.forString(to.host());
        InetAddress from = source;
        // A listener checks that a connection comes from the address its Hello claims: on a wildcard bind, or with
        // several addresses, the kernel's pick may be another.
        ChannelFuture connecting = from != null && from.getClass() == ip.getClass()
                ? bootstrap.connect(new InetSocketAddress(ip, to.port()), new InetSocketAddress(from, 0))
                : bootstrap.connect(new InetSocketAddress(ip, to.port()));
        Connection c = new Connection(to, connecting.channel());
        connecting.channel().attr(OutboundPipeline.CONNECTION).set(c);
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
                if (ConnectRefusal.is(f.cause())) {
                    // A task of its own: the node may send at once, and a send must not run inside this listener.
                    try {
                        loop.execute(() -> refused.accept(to));
                    } catch (RejectedExecutionException e) {
                        log.debug("{}: the loop is shutting down; the refusal at {} is not told", localName, to);
                    }
                }
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

    /** A bug in the sender: a field of {@code envelope} breaks a wire bound. */
    private void unencodable(Envelope envelope, Address to, RuntimeException e) {
        log.warn("{}: cannot encode {} for {}: {}", localName, envelope.body().type(), to, e.toString());
        drop(DropReason.UNENCODABLE);
    }

    /** Counts a frame dropped without being written. */
    void drop(DropReason reason) {
        framesDropped.increment();
        listener.frameDropped(reason);
    }

    /** Counts a write the halt stopped at the socket. */
    void sentAfterHalt() {
        framesSentAfterHalt.increment();
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

    /** One peer's connection. Confined to the loop. */
    final class Connection {
        final Address to;
        final Channel channel;
        ArrayDeque<QueuedEnvelope> pending = new ArrayDeque<>();
        long pendingBytes;
        // The version the Welcome taught, written in while this connection lasts, forgotten with it.
        PeerVersions.Taught taught;
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

        /**
         * A challenge of a claim to this address: at most {@link NettyTransport#CHALLENGES_BEFORE_WELCOME_MAX} before
         * the welcome.
         */
        void challenge(byte[] body) {
            if (!active && challenges >= NettyTransport.CHALLENGES_BEFORE_WELCOME_MAX) {
                drop(DropReason.UNVERIFIED);
                return;
            }
            if (!active) {
                challenges++;
            }
            sendHandshake(body);
        }

        void send(Envelope envelope) {
            if (dead) {
                drop(DropReason.CONNECTION_LOST);
            } else if (!active) {
                queue(envelope);
            } else if (!channel.isWritable()) {
                drop(DropReason.UNWRITABLE);
            } else {
                encodeAndWrite(envelope);
            }
        }

        /** Encodes {@code envelope} in this connection's version and writes it; drops what cannot be. */
        private void encodeAndWrite(Envelope envelope) {
            MessageCodec codec = taught != null ? taught.codec : versions.codecFor(to);
            if (!MessageCodec.carries(envelope.body().type(), codec.version())) {
                drop(DropReason.OLDER_PEER);
                return;
            }
            try {
                writeEnvelope(codec.encode(envelope));
            } catch (RuntimeException e) {
                unencodable(envelope, to, e);
            }
        }

        /**
         * Queues a frame until the welcome; past a bound (this peer's frames or bytes, or all peers' bytes) the oldest
         * frames queued here are shed first, and the new frame is dropped only when it alone is over the bound.
         */
        void queue(Envelope envelope) {
            int size;
            MessageCodec codec = versions.codecFor(to);
            // A message the oldest version lacks (a remove's ack) is sized in this node's own: whether the peer reads
            // it is known at the welcome, when encodeAndWrite drops it for a peer of the older version.
            if (!MessageCodec.carries(envelope.body().type(), codec.version())) {
                codec = versions.own();
            }
            try {
                size = codec.encodedSize(envelope);
            } catch (RuntimeException e) {
                unencodable(envelope, to, e);
                return;
            }
            while (!pending.isEmpty() && (pending.size() >= NettyTransport.PENDING_FRAMES_MAX
                    || pendingBytes + size > NettyTransport.PENDING_BYTES_MAX
                    || pendingBytesTotal + size > NettyTransport.PENDING_BYTES_TOTAL_MAX)) {
                QueuedEnvelope oldest = pending.poll();
                pendingBytes -= oldest.size();
                pendingBytesTotal -= oldest.size();
                drop(DropReason.SHED);
            }
            if (pendingBytes + size > NettyTransport.PENDING_BYTES_MAX
                    || pendingBytesTotal + size > NettyTransport.PENDING_BYTES_TOTAL_MAX) {
                drop(DropReason.QUEUE_FULL);
                return;
            }
            pending.add(new QueuedEnvelope(envelope, size));
            pendingBytes += size;
            pendingBytesTotal += size;
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
            hellos.sent(to);
            write(hellos.frame());
            for (byte[] body : handshake) {
                write(body);
            }
            handshake = List.of();
        }

        /**
         * The listener proved willing, and speaks versions up to {@code peerNewest}: what waited goes, in order, in
         * the newest version both speak, and later frames go at once.
         */
        void welcomed(int peerNewest) {
            if (dead || active) {
                return;
            }
            active = true;
            int shared = versions.shared(peerNewest);
            if (shared > 0) {
                taught = versions.learn(to, shared);
            }
            hellos.answered(to);
            welcomes.increment();
            log.debug("{}: welcomed by {}", localName, to);
            for (QueuedEnvelope q : pending) {
                encodeAndWrite(q.envelope());
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
            if (!dead) {
                log.debug("{}: connection to {} lost ({}), {} queued frames dropped", localName, to, why,
                        pending == null ? 0 : pending.size());
            }
            abort(DropReason.CONNECTION_LOST);
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
            if (taught != null) {
                versions.forget(to, taught);
            }
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
}
