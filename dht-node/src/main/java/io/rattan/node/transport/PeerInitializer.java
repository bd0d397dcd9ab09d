package io.rattan.node.transport;

import io.netty.channel.ChannelHandler;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.EnvelopeInitializer;
import io.rattan.node.netty.TransportListener;
import java.util.function.Consumer;

/**
 * An inbound peer connection's pipeline: framing → codec → {@link PeerFrameHandler}. Inbound only: a peer's replies
 * come back on the peer's own outbound connection.
 */
final class PeerInitializer extends EnvelopeInitializer {

    private final Consumer<Envelope> consumer;
    private final String localName;
    private final ChannelHandler rateGate;

    PeerInitializer(MessageCodec codec, Consumer<Envelope> consumer, String localName, TransportListener listener,
                    ConnectionLimits limits, ChannelHandler rateGate) {
        super(codec, listener, "peer connection", limits);
        this.consumer = consumer;
        this.localName = localName;
        this.rateGate = rateGate;
    }

    @Override
    protected ChannelHandler gate() {
        return rateGate;
    }

    @Override
    protected ChannelHandler newHandler() {
        return new PeerFrameHandler(consumer, localName);
    }
}
