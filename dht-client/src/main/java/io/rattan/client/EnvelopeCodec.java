package io.rattan.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.List;

/**
 * Turns one length-stripped frame into an {@link Envelope}, and an envelope into a whole frame, its 4-byte length
 * prefix included, in one pooled buffer, so that one request is one buffer to write. Frames are encoded into and
 * decoded from a scratch array of the connection's, grown to the largest frame seen, so that a request or reply
 * allocates no array of its own on the way (the codec copies what it keeps). A frame that does not decode surfaces
 * as a {@code DecoderException} (the handler then closes the connection); an envelope that does not encode fails its
 * write with an {@code EncoderException}.
 *
 * <p>One instance per connection: the scratch array is confined to the connection's event loop.
 */
final class EnvelopeCodec extends MessageToMessageCodec<ByteBuf, Envelope> {

    private static final int LENGTH_FIELD_BYTES = 4;
    private static final int SCRATCH_BYTES_MIN = 512;

    private final MessageCodec codec;
    private byte[] scratch = new byte[SCRATCH_BYTES_MIN];

    EnvelopeCodec(MessageCodec codec) {
        this.codec = codec;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Envelope envelope, List<Object> out) {
        int size = codec.encodedSize(envelope);
        byte[] body = scratch(size);
        codec.encode(envelope, body, 0);
        ByteBuf frame = ctx.alloc().ioBuffer(LENGTH_FIELD_BYTES + size);
        frame.writeInt(size);
        frame.writeBytes(body, 0, size);
        out.add(frame);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        int length = frame.readableBytes();
        if (frame.hasArray()) {
            out.add(codec.decode(frame.array(), frame.arrayOffset() + frame.readerIndex(), length));
            return;
        }
        byte[] body = scratch(length);
        frame.getBytes(frame.readerIndex(), body, 0, length);
        out.add(codec.decode(body, 0, length));
    }

    /** The scratch array, grown to hold {@code size} bytes; frames are bounded by the codec, so it is too. */
    private byte[] scratch(int size) {
        if (scratch.length < size) {
            scratch = new byte[Math.max(size, Math.min(2 * scratch.length, codec.frameBytesMax()))];
        }
        return scratch;
    }
}
