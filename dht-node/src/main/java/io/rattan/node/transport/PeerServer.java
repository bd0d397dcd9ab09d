package io.rattan.node.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.limits.Limits;
import io.rattan.node.netty.CountingListener;
import io.rattan.node.netty.RateGate;
import io.rattan.node.netty.TcpServer;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Accepts peer connections, runs the listener's side of the peer handshake on each ({@link PeerFrameHandler}), and
 * hands every frame whose sender is proven, decoded, to the node.
 *
 * <p>The server and all its connections live on the node's own loop, so {@code consumer} is called on that loop with
 * no hop, in arrival order per connection. A connection that sends an undecodable frame or announces a frame above the
 * codec's limit is closed (logged at debug, counted); the others are not affected. The node's {@link Limits} bound
 * the connections (in total and per IP; more are closed on accept), close idle connections and connections whose
 * frame is not whole by its deadline, and drop frames above a peer's rate ({@link RateGate}: keyed by the node id
 * the connection's handshake proved, or by the source IP, at the lower rate for strangers, until it has), counted and
 * unanswered.
 *
 * <p>The constructor binds synchronously. {@link #close} may be called from any thread but the loop.
 */
public final class PeerServer implements AutoCloseable {

    private final TcpServer server;
    private final CountingListener counting;
    private final LongAdder framesReceived = new LongAdder();
    private final RateGate rateGate;

    /** A server with the default {@link Limits}. */
    public PeerServer(EventLoop loop, InetSocketAddress bind, MessageCodec codec, Consumer<Envelope> consumer,
                      String localName, NettyTransport transport, TransportListener listener) throws IOException {
        this(loop, bind, codec, consumer, localName, transport, listener, Limits.defaults());
    }

    /**
     * @param loop      the node's loop: the server, its connections and {@code consumer} run on it
     * @param bind      where to listen; port 0 picks a free port (see {@link #localAddress})
     * @param codec     decodes frame bodies; its {@code frameBytesMax} bounds the accepted frame length
     * @param consumer  receives each envelope whose sender completed the handshake, on {@code loop}; it must not
     *                  block
     * @param localName names this node in logs
     * @param listener  receives byte, rejection and refusal counts
     * @param transport this node's transport, on the same loop: it carries the handshake's challenges and answers
     * @param limits    the connection bounds, timeouts and the peer rates (per verified id, per unverified IP)
     * @throws IOException when the address cannot be bound
     */
    public PeerServer(EventLoop loop, InetSocketAddress bind, MessageCodec codec, Consumer<Envelope> consumer,
                      String localName, NettyTransport transport, TransportListener listener, Limits limits)
            throws IOException {
        if (loop == null || bind == null || codec == null || consumer == null || localName == null
                || transport == null || listener == null || limits == null) {
            throw new IllegalArgumentException("every argument is required");
        }
        this.counting = new CountingListener(listener);
        Consumer<Envelope> countingConsumer = envelope -> {
            framesReceived.increment();
            consumer.accept(envelope);
        };
        this.rateGate = new RateGate(limits.peerRequestsPerSecond(), limits.peerIpRequestsPerSecond(), counting);
        this.server = new TcpServer(loop, bind, "the peer server", limits.connections(), counting,
                bootstrap -> bootstrap
                        .option(ChannelOption.SO_REUSEADDR, true)
                        .childOption(ChannelOption.SO_KEEPALIVE, true),
                new PeerInitializer(codec, countingConsumer, localName, transport, new SecureRandom(), counting,
                        limits.connections(), rateGate));
    }

    /** The address actually bound (the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Frames refused: undecodable, or announced above the limit. */
    public long framesRejected() {
        return counting.framesRejected();
    }

    /** Peer frames kept from the node by the handshake rules: unverified or forged senders, bad hellos or answers. */
    public long framesRefused() {
        return counting.peerFramesRefused();
    }

    /** Refusals of one kind so far: connections over a bound, frames over a rate, timeouts. */
    public long refusals(TransportListener.Refusal refusal) {
        return counting.refusals(refusal);
    }

    /** Senders whose rate is tracked now: verified peers by id and unverified source IPs (each bounded). */
    public long peersRateTracked() {
        return rateGate.sendersTracked();
    }

    /** Verified peers whose rate is tracked now, by node id (bounded). */
    public long verifiedPeersRateTracked() {
        return rateGate.peersTracked();
    }

    /** Source IPs with a connection open now. */
    public int sourceCount() {
        return server.sourceCount();
    }

    /** Frames decoded and handed to the consumer. */
    public long framesReceived() {
        return framesReceived.sum();
    }

    /** Connections accepted since the server started. */
    public long connectionsAccepted() {
        return server.connectionsAccepted();
    }

    /** Connections open now. */
    public int connectionCount() {
        return server.connectionCount();
    }

    /** Closes every accepted connection but keeps listening; for tests of the peers' reconnection. */
    void closeConnections() {
        server.closeConnections();
    }

    /**
     * Stops listening and closes every connection, without waiting for anything to drain. Off the loop it waits
     * (bounded) for the sockets to close; on the loop it cannot wait, and returns at once.
     */
    @Override
    public void close() {
        server.close();
    }
}
