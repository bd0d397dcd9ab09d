package io.rattan.node.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared end of the peer and client pipelines: decodes each frame body into an {@link Envelope} and hands it to
 * {@link #onEnvelope}. An undecodable frame, or a framing error below (a length above the limit, or negative),
 * condemns the connection: it is counted, logged and closed, and frames already cut from the same read are ignored.
 * One instance per connection; its state is confined to the connection's loop.
 */
abstract class EnvelopeInboundHandler extends SimpleChannelInboundHandler<ByteBuf> {

    private static final Logger log = LoggerFactory.getLogger(EnvelopeInboundHandler.class);

    final MessageCodec codec;
    final TransportListener listener;
    private final String connectionKind;
    private boolean rejected;

    /** @param connectionKind how logs name this connection, e.g. "peer connection" */
    EnvelopeInboundHandler(MessageCodec codec, TransportListener listener, String connectionKind) {
        this.codec = codec;
        this.listener = listener;
        this.connectionKind = connectionKind;
    }

    /** A frame decoded; runs on the connection's loop. */
    abstract void onEnvelope(ChannelHandlerContext ctx, Envelope envelope);

    @Override
    protected final void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
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
        onEnvelope(ctx, envelope);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            reject(ctx, cause.getMessage());
        } else {
            log.debug("{} from {} failed: {}", connectionKind, ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    private void reject(ChannelHandlerContext ctx, String why) {
        if (rejected) {
            return;
        }
        rejected = true;
        listener.frameRejected();
        log.debug("closing {} from {}: {}", connectionKind, ctx.channel().remoteAddress(), why);
        ctx.close();
    }
}
