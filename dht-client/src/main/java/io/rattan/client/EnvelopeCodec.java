package io.rattan.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.List;

/**
 * Turns one length-stripped frame into an {@link Envelope} and back, with core's {@link MessageCodec}. A frame that
 * does not decode surfaces as a {@code DecoderException} (the handler then closes the connection); an envelope that
 * does not encode fails its write with an {@code EncoderException}. Stateless, so one instance serves every channel.
 */
@ChannelHandler.Sharable
final class EnvelopeCodec extends MessageToMessageCodec<ByteBuf, Envelope> {

    private final MessageCodec codec;

    EnvelopeCodec(MessageCodec codec) {
        this.codec = codec;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Envelope envelope, List<Object> out) {
        out.add(Unpooled.wrappedBuffer(codec.encode(envelope)));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        if (frame.hasArray()) {
            out.add(codec.decode(frame.array(), frame.arrayOffset() + frame.readerIndex(), frame.readableBytes()));
        } else {
            out.add(codec.decode(ByteBufUtil.getBytes(frame)));
        }
    }
}
