package io.rattan.node.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.netty.ByteCountingHandler;
import io.rattan.node.netty.EnvelopeCodec;
import io.rattan.node.netty.Frames;
import io.rattan.node.netty.TransportListener;
import java.util.function.Consumer;

/**
 * An inbound peer connection's pipeline: byte counting → framing → {@link EnvelopeCodec} → {@link PeerFrameHandler}.
 * Inbound only: a peer's replies come back on the peer's own outbound connection.
 */
@ChannelHandler.Sharable
final class PeerInitializer extends ChannelInitializer<Channel> {

    private final MessageCodec codec;
    private final Consumer<Envelope> consumer;
    private final String localName;
    private final TransportListener listener;
    private final ByteCountingHandler byteCounter;

    PeerInitializer(MessageCodec codec, Consumer<Envelope> consumer, String localName, TransportListener listener) {
        this.codec = codec;
        this.consumer = consumer;
        this.localName = localName;
        this.listener = listener;
        this.byteCounter = new ByteCountingHandler(listener);
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline()
                .addLast("bytes", byteCounter)
                .addLast("framing", Frames.newFrameDecoder(codec.frameBytesMax()))
                .addLast("codec", new EnvelopeCodec(codec, listener, "peer connection"))
                .addLast("peer", new PeerFrameHandler(consumer, localName));
    }
}
