package io.rattan.node.gateway.binary;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.limits.Limits;
import io.rattan.node.netty.CountingListener;
import io.rattan.node.netty.TcpServer;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.ServerTls;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The binary client RPC of a gateway: clients send {@code ClientPut}, {@code ClientGet} and {@code ClientRemove}
 * frames (framed and encoded as between peers, with no sender) and get one reply frame per request with the same
 * request id, in completion order.
 *
 * <p>A frame that is not a client request is answered with {@code ErrorReply(BAD_REQUEST)}; an undecodable frame or
 * an oversize length closes the connection. Each connection may have at most {@code inFlightMax} requests in flight;
 * beyond that a request is answered with {@code ErrorReply(UNAVAILABLE)} at once. A client that stops reading its
 * replies is not read from until it catches up. The {@link ClientGuard} refuses requests over the client's rate and
 * puts beyond its storage share; {@link ConnectionLimits} bound the connections in total and per IP and close idle
 * connections and those whose frame is not whole by its deadline.
 *
 * <p>A {@code CLIENT_WATCH} is answered by a stream of {@code WATCH_EVENT}s with its request id until one of kind
 * ENDED or the client's {@code CLIENT_UNWATCH} (not answered); a connection multiplexes at most
 * {@link Limits#watchesPerConnectionMax()} watches (one more ends at once, RATE_LIMITED), and is closed, ending its
 * watches, when more than {@link #WATCH_PENDING_BYTES_MAX} bytes of events wait to be written to it.
 *
 * <p>The constructor binds synchronously. {@link #close} may be called from any thread; it waits (bounded) only when
 * not called on one of the group's loops.
 */
public final class ClientGatewayServer implements AutoCloseable {

    /** Default bound of requests in flight on one connection. */
    public static final int IN_FLIGHT_MAX = 1024;
    private static final int WRITE_BUFFER_HIGH_BYTES = 4 << 20;
    private static final int WRITE_BUFFER_LOW_BYTES = 1 << 20;
    /**
     * Watch events waiting to be written to one connection beyond which it is closed: twice the mark at which it
     * stops being writable, so a client that reads slowly is not closed for one burst, and one that stops reading
     * costs a bounded buffer.
     */
    public static final long WATCH_PENDING_BYTES_MAX = 2L * WRITE_BUFFER_HIGH_BYTES;

    private final TcpServer server;
    private final CountingListener counting;

    /** A gateway with the default codec, in-flight bound and connection limits, no client limits, no metrics. */
    public ClientGatewayServer(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend)
            throws IOException {
        this(group, bind, backend, new MessageCodec(), IN_FLIGHT_MAX, TransportListener.NONE);
    }

    /** A gateway with the default connection limits and no client limits. */
    public ClientGatewayServer(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend,
                               MessageCodec codec, int inFlightMax, TransportListener listener) throws IOException {
        this(group, bind, backend, codec, inFlightMax, listener, ClientGuard.none(), ConnectionLimits.defaults());
    }

    /** A gateway with the default bound of watches per connection. */
    public ClientGatewayServer(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend,
                               MessageCodec codec, int inFlightMax, TransportListener listener, ClientGuard guard,
                               ConnectionLimits limits) throws IOException {
        this(group, bind, backend, codec, inFlightMax, listener, guard, limits, Limits.WATCHES_PER_CONNECTION_MAX,
                null);
    }

    /**
     * @param group       runs the server and its connections; give it the node's own group so that replies, which
     *                    complete on the node's loop, are written without a hop
     * @param bind        where to listen; port 0 picks a free port
     * @param backend     serves the requests
     * @param codec       decodes requests and encodes replies; its {@code frameBytesMax} bounds frames
     * @param inFlightMax requests in flight per connection before new ones are refused
     * @param listener    receives byte, rejection and refusal counts
     * @param guard       the client limits (rate and storage share per source IP)
     * @param limits      the connection bounds and timeouts
     * @param watchesMax  watches per connection before new ones end at once (RATE_LIMITED)
     * @param tls         TLS on every connection (the node's --client-tls-cert), or null for none
     * @throws IOException when the address cannot be bound
     */
    public ClientGatewayServer(EventLoopGroup group, InetSocketAddress bind, GatewayBackend backend,
                               MessageCodec codec, int inFlightMax, TransportListener listener, ClientGuard guard,
                               ConnectionLimits limits, int watchesMax, ServerTls tls) throws IOException {
        if (group == null || bind == null || backend == null || codec == null || listener == null || guard == null
                || limits == null) {
            throw new IllegalArgumentException("every argument is required");
        }
        if (inFlightMax < 1 || watchesMax < 1) {
            throw new IllegalArgumentException("inFlightMax and watchesMax must be positive: " + inFlightMax + ", "
                    + watchesMax);
        }
        this.counting = new CountingListener(listener);
        this.server = new TcpServer(group, bind, "the binary gateway", limits, counting,
                bootstrap -> bootstrap
                        .option(ChannelOption.SO_REUSEADDR, true)
                        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                                new WriteBufferWaterMark(WRITE_BUFFER_LOW_BYTES, WRITE_BUFFER_HIGH_BYTES)),
                new ClientGatewayInitializer(codec, backend, guard, inFlightMax, watchesMax,
                        WATCH_PENDING_BYTES_MAX, counting, limits, tls));
    }

    /** The address actually bound (the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Frames refused by closing their connection: undecodable, or announced above the limit. */
    public long framesRejected() {
        return counting.framesRejected();
    }

    /** Refusals of one kind so far: connections over a bound, timeouts. */
    public long refusals(TransportListener.Refusal refusal) {
        return counting.refusals(refusal);
    }

    /** Connections open now. */
    public int connectionCount() {
        return server.connectionCount();
    }

    /** Stops listening and closes every connection; replies still in flight are lost. */
    @Override
    public void close() {
        server.close();
    }
}
