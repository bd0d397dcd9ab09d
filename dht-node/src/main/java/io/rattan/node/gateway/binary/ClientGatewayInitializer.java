package io.rattan.node.gateway.binary;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.netty.ByteCountingHandler;
import io.rattan.node.netty.EnvelopeCodec;
import io.rattan.node.netty.Frames;
import io.rattan.node.netty.TransportListener;

/**
 * A binary client connection's pipeline: byte counting → framing → {@link EnvelopeCodec} →
 * {@link ClientGatewayHandler}. The codec encodes the replies on their way out too.
 */
@ChannelHandler.Sharable
final class ClientGatewayInitializer extends ChannelInitializer<Channel> {

    private final MessageCodec codec;
    private final GatewayBackend backend;
    private final int inFlightMax;
    private final TransportListener listener;
    private final ByteCountingHandler byteCounter;

    ClientGatewayInitializer(MessageCodec codec, GatewayBackend backend, int inFlightMax, TransportListener listener) {
        this.codec = codec;
        this.backend = backend;
        this.inFlightMax = inFlightMax;
        this.listener = listener;
        this.byteCounter = new ByteCountingHandler(listener);
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline()
                .addLast("bytes", byteCounter)
                .addLast("framing", Frames.newFrameDecoder(codec.frameBytesMax()))
                .addLast("codec", new EnvelopeCodec(codec, listener, "client connection"))
                .addLast("gateway", new ClientGatewayHandler(backend, inFlightMax));
    }
}
