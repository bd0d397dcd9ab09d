package io.rattan.node.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
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
final class PeerFrameHandler extends SimpleChannelInboundHandler<ByteBuf> {

    private static final Logger log = LoggerFactory.getLogger(PeerFrameHandler.class);

    private final MessageCodec codec;
    private final Consumer<Envelope> consumer;
    private final String localName;
    private final TransportListener listener;
    // Frames already cut from the same read may follow a bad one; once the connection is condemned they are ignored.
    private boolean rejected;

    PeerFrameHandler(MessageCodec codec, Consumer<Envelope> consumer, String localName, TransportListener listener) {
        this.codec = codec;
        this.consumer = consumer;
        this.localName = localName;
        this.listener = listener;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        if (rejected) {
            return;
        }
        Envelope envelope;
        try {
            envelope = Frames.decode(codec, frame);
        } catch (RuntimeException e) {
            reject(ctx, "undecodable frame: " + e.getMessage());
            return;
        }
        try {
            consumer.accept(envelope);
        } catch (RuntimeException e) {
            // A failure of the node on one message is a bug to fix, not a reason to drop the peer's connection.
            log.warn("{}: node failed on {} from {}", localName, envelope.body().type(), envelope.sender(), e);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            reject(ctx, cause.getMessage());
        } else {
            log.debug("{}: peer connection from {} failed: {}", localName, ctx.channel().remoteAddress(),
                    cause.toString());
            ctx.close();
        }
    }

    private void reject(ChannelHandlerContext ctx, String why) {
        if (rejected) {
            return;
        }
        rejected = true;
        listener.frameRejected();
        log.debug("{}: closing peer connection from {}: {}", localName, ctx.channel().remoteAddress(), why);
        ctx.close();
    }
}
