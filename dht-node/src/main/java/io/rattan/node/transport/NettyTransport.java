package io.rattan.node.transport;

import com.google.common.net.InetAddresses;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Transport;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Challenge;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.net.Contact;
import io.rattan.node.limits.Limits;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.PeerTls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real node's {@link Transport}: one persistent outbound TCP connection per peer address, opened lazily on the
 * first send and reopened on the first send after it fails or closes.
 *
 * <p>Every outbound channel is registered on the node's own loop, the loop {@link #send} is called on, so connection
 * state is confined to that thread and needs no locks. A frame is encoded on the loop, in the protocol version spoken
 * to its peer ({@link PeerVersions}), and written at once, or, while the connection waits for its {@code Welcome},
 * when that comes and names the peer's version; one flush per connection runs after the current loop task, so a burst
 * of sends costs one system call per peer.
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
    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final EventLoop loop;
    private final MessageCodec codec;
    private final String localName;
    private final HelloThrottle hellos = new HelloThrottle();
    private final OutboundConnections connections;
    private final PeerVersions versions;
    private volatile Contact self;
    private volatile NodeKey key;
    private volatile PeerTls tls;
    private volatile Consumer<Address> refused = to -> { };

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
        this.loop = loop;
        this.codec = codec;
        this.localName = localName;
        this.versions = new PeerVersions(codec);
        this.connections = new OutboundConnections(loop, codec, localName, listener, outboundMax, hellos, versions,
                () -> tls, to -> refused.accept(to));
    }

    /**
     * Names this node in the {@code Hello} that opens each connection: its id, its listening address (an IP literal)
     * and its gateway port, as the envelopes it sends name it; {@code key} proves the id to peers (its SHA-1 must be
     * the contact's id). Must be called, on any thread, before the first send.
     */
    public void identity(Contact contact, NodeKey key) {
        if (contact == null || key == null) {
            throw new IllegalArgumentException("contact and key are required");
        }
        if (!key.id().equals(contact.id())) {
            throw new IllegalArgumentException("the contact's id " + contact.id() + " is not the key's, " + key.id());
        }
        this.key = key;
        hellos.frame(contact, codec);
        InetAddress advertised = InetAddresses.forString(contact.address().host());
        // 127.0.0.1 and ::1 are the kernel's own pick toward loopback peers: no source to bind.
        String literal = InetAddresses.toAddrString(advertised);
        boolean kernelsPick = literal.equals("127.0.0.1") || literal.equals("::1");
        if (kernelsPick) {
            log.debug("{}: outbound connections leave from the kernel's pick, {}", localName, advertised);
        } else if (isOwnAddress(advertised)) {
            connections.source(advertised);
        } else if (tls() == null) {
            log.warn("{}: the advertised address {} is not one of this machine's (NAT or port mapping?); peers check "
                    + "that a connection comes from the address it claims, so they may refuse this node's (under "
                    + "TLS its certificate replaces that check)", localName, advertised.getHostAddress());
        }
        this.self = contact;
    }

    /** Whether a socket can bind {@code ip} here: an address of this machine's (all of 127/8 on Linux). */
    private static boolean isOwnAddress(InetAddress ip) {
        try (Socket probe = new Socket()) {
            probe.bind(new InetSocketAddress(ip, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Runs mutual TLS on every peer connection, accepted and dialed ({@link PeerTls}); then a peer's hello must
     * claim the id of its certificate, and may come from another address than it claims. To be called before
     * {@link #identity}, the peer server's start and the first send.
     */
    public void tls(PeerTls peerTls) {
        this.tls = peerTls;
    }

    /** The peer connections' TLS, or null when they run without. */
    public PeerTls tls() {
        return tls;
    }

    /**
     * Tells {@code refused}, on the loop, of each peer address whose listener refused a connection (nothing listens
     * there now: the node's failure detection acts on it at once). Any thread, before the first send.
     */
    public void onRefused(Consumer<Address> refused) {
        this.refused = refused;
    }

    /** Shortens the handshake timeout, for tests that wait for it. */
    void handshakeTimeoutMillis(int millis) {
        connections.handshakeTimeoutMillis(millis);
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
        if (connections.closed() || connections.halted()) {
            connections.drop(DropReason.CLOSED);
            return;
        }
        if (self == null) {
            throw new IllegalStateException("identity must be set before the first send");
        }
        OutboundConnections.Connection c = connections.get(to);
        if (c == null) {
            if (!InetAddresses.isInetAddress(to.host())) {
                // Peers are known by IP literals only: a name would be resolved, blocking, on this loop.
                connections.drop(DropReason.NOT_AN_IP);
                return;
            }
            if (hellos.recentlyUnanswered(to)) {
                connections.drop(DropReason.UNVERIFIED);
                return;
            }
            c = connections.connect(to);
        }
        c.send(envelope);
    }

    /**
     * Sends a handshake {@code Challenge} with {@code nonce} to the node that claims to listen at {@code claimed}, over
     * this node's own connection to it (opened if need be, whatever the {@code Hello} interval: the host at that IP
     * has just connected to us). On the loop.
     */
    void challenge(Address claimed, long nonce) {
        if (connections.closed() || connections.halted()) {
            return;
        }
        OutboundConnections.Connection c = connections.get(claimed);
        if (c == null) {
            if (hellos.recentlyUnanswered(claimed)) {
                // Whoever claims this address has not answered our last hello there: one per interval, whatever
                // number of hellos claim it.
                connections.drop(DropReason.UNVERIFIED);
                return;
            }
            // The claim's host is an IP literal (PeerFrameHandler checked it): the claimant's source IP, or under TLS
            // any a member claims; the hello interval bounds how often it is dialed.
            c = connections.connect(claimed);
        }
        c.challenge(versions.handshake().encode(new Envelope(self, nonce, new Challenge())));
    }

    /**
     * Answers a {@code Challenge} with its {@code nonce} on this node's own connection to {@code challenger}, the
     * connection whose claim it tests, in {@code version}, the one this node shares with the challenger: from 13 on,
     * with the proof of this node's id ({@link IdProofs}). Nothing is sent when there is no such connection: an
     * answer never opens one.
     */
    void answerChallenge(Contact challenger, long nonce, int version) {
        OutboundConnections.Connection c = connections.get(challenger.address());
        // Even while closing: a connection being closed gracefully drains once its handshake completes.
        if (c == null || connections.halted()) {
            return;
        }
        boolean proves = version >= IdProofs.SINCE;
        IdProof proof = proves ? IdProofs.prove(key, nonce, challenger) : null;
        MessageCodec in = proves ? codec.at(version) : versions.handshake();
        c.sendHandshake(in.encode(new Envelope(self, nonce, new ChallengeAnswer(proof))));
    }

    /**
     * Refuses peers that cannot prove their ids, as {@code --require-id-proof} says: to be called before the peer server
     * starts. Since protocol 14 no version this node speaks lacks proofs, so it changes nothing but is kept for the flag.
     */
    public void requireIdProofs() {
        versions.requireProofs();
    }

    /** The peer versions this node keeps: the peer server's handlers learn and forget them. On the loop. */
    PeerVersions versions() {
        return versions;
    }

    /** Peer addresses this node speaks an older protocol version to than its own: a rolling upgrade under way. */
    public int peersSpeakingOlder() {
        return versions.olderCount();
    }

    /** Handshakes completed: connections a listener welcomed. */
    public long welcomes() {
        return connections.welcomes.sum();
    }

    /** Connections closed to keep within the outbound bound, the least recently used first. */
    public long connectionsEvicted() {
        return connections.evicted.sum();
    }

    /**
     * Crashes the transport: from this call on no byte reaches a socket, whatever is queued or buffered is discarded,
     * and every connection is closed. Any thread; returns once the connections are closed (or the loop is gone).
     */
    public void halt() {
        connections.markHalted();
        onLoopAndWait(() -> {
            for (OutboundConnections.Connection c : connections.all()) {
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
        if (connections.closed()) {
            return;
        }
        connections.markClosed();
        // Filled on the loop, read here: the loop task may outlive the wait below.
        List<ChannelFuture> closing = new CopyOnWriteArrayList<>();
        onLoopAndWait(() -> {
            for (OutboundConnections.Connection c : connections.all()) {
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
        return connections.connectionCount.get();
    }

    /** Envelope frames written to a connection (handed to Netty on their way to the socket); handshakes apart. */
    public long framesSent() {
        return connections.framesSent.sum();
    }

    /** Frames dropped without being written, for any {@link DropReason}. */
    public long framesDropped() {
        return connections.framesDropped.sum();
    }

    /** Frames that reached a connection after {@link #halt} began (and were discarded there). Must stay 0. */
    public long framesSentAfterHalt() {
        return connections.framesSentAfterHalt.sum();
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
}
