package io.rattan.node.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.rattan.core.codec.MessageCodec;

/**
 * The pipeline of a binary protocol's connection, peer or client: byte counting → framing
 * ({@link Frames#newFrameDecoder}) → {@link EnvelopeCodec} → the protocol's thin handler, which sees only decoded
 * envelopes. A protocol names its handler; everything below it is the same for both. Sharable: each connection gets
 * its own framing, codec and handler.
 */
@ChannelHandler.Sharable
public abstract class EnvelopeInitializer extends ChannelInitializer<Channel> {

    private final MessageCodec codec;
    private final TransportListener listener;
    private final String connectionKind;
    private final ByteCountingHandler byteCounter;

    /**
     * @param codec          decodes and encodes frame bodies; its {@code frameBytesMax} bounds the frame length
     * @param listener       receives byte counts and rejected frames
     * @param connectionKind how logs name a connection, e.g. "peer connection"
     */
    protected EnvelopeInitializer(MessageCodec codec, TransportListener listener, String connectionKind) {
        this.codec = codec;
        this.listener = listener;
        this.connectionKind = connectionKind;
        this.byteCounter = new ByteCountingHandler(listener);
    }

    /** The thin handler of one new connection; called on the connection's loop. */
    protected abstract ChannelHandler newHandler();

    @Override
    protected final void initChannel(Channel ch) {
        ch.pipeline()
                .addLast("bytes", byteCounter)
                .addLast("framing", Frames.newFrameDecoder(codec.frameBytesMax()))
                .addLast("codec", new EnvelopeCodec(codec, listener, connectionKind))
                .addLast("handler", newHandler());
    }
}
