package io.rattan.node.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageToMessageCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The codec of the peer and client pipelines, between the framing ({@link Frames#newFrameDecoder}) and the thin
 * handler: decodes each frame body into an {@link Envelope}, and encodes each outbound envelope into a whole frame,
 * length prefix included, in one buffer so that one frame is one write.
 *
 * <p>Malformed input condemns the connection: a frame body that does not decode, or a framing error from below (a
 * length above the limit, or negative), is counted once ({@link TransportListener#frameRejected}), logged at debug,
 * and the channel is closed; frames already cut from the same read are dropped, so the handler never sees a frame
 * that follows a bad one. An envelope that does not encode fails its write with an {@code EncoderException}.
 *
 * <p>One instance per connection; its state is confined to the connection's loop.
 */
final class EnvelopeCodec extends MessageToMessageCodec<ByteBuf, Envelope> {

    private static final Logger log = LoggerFactory.getLogger(EnvelopeCodec.class);

    private final MessageCodec codec;
    private final TransportListener listener;
    private final String connectionKind;
    private boolean rejected;

    /**
     * @param codec          decodes frame bodies and encodes envelopes
     * @param listener       receives a {@code frameRejected} when this connection is condemned
     * @param connectionKind how logs name this connection, e.g. "peer connection"
     */
    EnvelopeCodec(MessageCodec codec, TransportListener listener, String connectionKind) {
        this.codec = codec;
        this.listener = listener;
        this.connectionKind = connectionKind;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Envelope envelope, List<Object> out) {
        out.add(Frames.prefixed(ctx.alloc(), codec.encode(envelope)));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf body, List<Object> out) {
        if (rejected) {
            return;
        }
        try {
            out.add(decodeBody(body));
        } catch (RuntimeException e) {
            // Thrown so that it reaches exceptionCaught below, with the framing errors, as one kind of failure.
            throw new CorruptedFrameException("undecodable frame: " + e.getMessage(), e);
        }
    }

    private Envelope decodeBody(ByteBuf body) {
        int length = body.readableBytes();
        if (body.hasArray()) {
            return codec.decode(body.array(), body.arrayOffset() + body.readerIndex(), length);
        }
        return codec.decode(ByteBufUtil.getBytes(body, body.readerIndex(), length, false), 0, length);
    }

    /** Malformed input, from this codec or the framing below, closes the connection; other failures pass on. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof DecoderException)) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        if (rejected) {
            return;
        }
        rejected = true;
        listener.frameRejected();
        log.debug("closing {} from {}: {}", connectionKind, ctx.channel().remoteAddress(), cause.getMessage());
        ctx.close();
    }
}
