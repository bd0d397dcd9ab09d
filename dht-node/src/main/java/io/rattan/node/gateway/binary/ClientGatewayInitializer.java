package io.rattan.node.gateway.binary;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.limits.Limits;
import io.rattan.node.netty.EnvelopeInitializer;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.ServerTls;

/**
 * A binary client connection's pipeline: TLS where it is on → framing → codec → {@link ClientGatewayHandler}. The
 * codec encodes the replies on their way out too.
 */
final class ClientGatewayInitializer extends EnvelopeInitializer {

    private final GatewayBackend backend;
    private final ClientGuard guard;
    private final int inFlightMax;
    private final int watchesMax;
    private final long watchPendingBytesMax;
    // TLS on every connection, or null for none.
    private final ServerTls tls;

    /** With the default bounds of watches. */
    ClientGatewayInitializer(MessageCodec codec, GatewayBackend backend, ClientGuard guard, int inFlightMax,
                             TransportListener listener, ConnectionLimits limits) {
        this(codec, backend, guard, inFlightMax, Limits.WATCHES_PER_CONNECTION_MAX,
                ClientGatewayServer.WATCH_PENDING_BYTES_MAX, listener, limits, null);
    }

    ClientGatewayInitializer(MessageCodec codec, GatewayBackend backend, ClientGuard guard, int inFlightMax,
                             int watchesMax, long watchPendingBytesMax, TransportListener listener,
                             ConnectionLimits limits, ServerTls tls) {
        super(codec, listener, "client connection", limits);
        this.tls = tls;
        this.backend = backend;
        this.guard = guard;
        this.inFlightMax = inFlightMax;
        this.watchesMax = watchesMax;
        this.watchPendingBytesMax = watchPendingBytesMax;
    }

    @Override
    protected ChannelHandler tls(Channel ch) {
        return tls == null ? null : tls.handler(ch);
    }

    @Override
    protected ChannelHandler newHandler() {
        return new ClientGatewayHandler(backend, guard, inFlightMax, watchesMax, watchPendingBytesMax);
    }
}
