package io.rattan.node.gateway.binary;

import io.netty.channel.ChannelHandler;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.netty.EnvelopeInitializer;
import io.rattan.node.netty.TransportListener;

/**
 * A binary client connection's pipeline: framing → codec → {@link ClientGatewayHandler}. The codec encodes the
 * replies on their way out too.
 */
final class ClientGatewayInitializer extends EnvelopeInitializer {

    private final GatewayBackend backend;
    private final int inFlightMax;

    ClientGatewayInitializer(MessageCodec codec, GatewayBackend backend, int inFlightMax, TransportListener listener) {
        super(codec, listener, "client connection");
        this.backend = backend;
        this.inFlightMax = inFlightMax;
    }

    @Override
    protected ChannelHandler newHandler() {
        return new ClientGatewayHandler(backend, inFlightMax);
    }
}
