package io.rattan.node.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.rattan.core.msg.Envelope;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin end of a peer connection's pipeline: hands each decoded envelope to the node. Malformed input never gets
 * here; the codec before it closes the connection. One instance per connection.
 */
final class PeerFrameHandler extends SimpleChannelInboundHandler<Envelope> {

    private static final Logger log = LoggerFactory.getLogger(PeerFrameHandler.class);

    private final Consumer<Envelope> consumer;
    private final String localName;

    PeerFrameHandler(Consumer<Envelope> consumer, String localName) {
        this.consumer = consumer;
        this.localName = localName;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope envelope) {
        try {
            consumer.accept(envelope);
        } catch (RuntimeException e) {
            // A failure of the node on one message is a bug to fix, not a reason to drop the peer's connection.
            log.warn("{}: node failed on {} from {}", localName, envelope.body().type(), envelope.sender(), e);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("peer connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
