package io.rattan.node.transport;

import io.netty.channel.ChannelHandlerContext;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin end of a peer connection's pipeline: decodes each frame body and hands the envelope to the node. A frame
 * that does not decode, or a framing error below (a length above the limit, or negative), closes the connection.
 * One instance per connection.
 */
final class PeerFrameHandler extends EnvelopeInboundHandler {

    private static final Logger log = LoggerFactory.getLogger(PeerFrameHandler.class);

    private final Consumer<Envelope> consumer;
    private final String localName;

    PeerFrameHandler(MessageCodec codec, Consumer<Envelope> consumer, String localName, TransportListener listener) {
        super(codec, listener, "peer connection");
        this.consumer = consumer;
        this.localName = localName;
    }

    @Override
    void onEnvelope(ChannelHandlerContext ctx, Envelope envelope) {
        try {
            consumer.accept(envelope);
        } catch (RuntimeException e) {
            // A failure of the node on one message is a bug to fix, not a reason to drop the peer's connection.
            log.warn("{}: node failed on {} from {}", localName, envelope.body().type(), envelope.sender(), e);
        }
    }
}
