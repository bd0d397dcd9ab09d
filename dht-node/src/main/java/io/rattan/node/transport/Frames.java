package io.rattan.node.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;

/**
 * TCP framing shared by the peer and client protocols: a 4-byte big-endian length, then one codec frame body.
 * The length counts the body only, as {@code LengthFieldPrepender(4)} writes it.
 */
final class Frames {

    static final int LENGTH_BYTES = 4;

    private Frames() {
    }

    /**
     * A decoder that cuts the stream into frame bodies, stripping the length. A length above {@code frameBytesMax}
     * (or negative) fails at once, before any body byte is buffered, with a {@code TooLongFrameException} or
     * {@code CorruptedFrameException}.
     */
    static LengthFieldBasedFrameDecoder newFrameDecoder(int frameBytesMax) {
        // The decoder's limit counts the length field too.
        return new LengthFieldBasedFrameDecoder(frameBytesMax + LENGTH_BYTES, 0, LENGTH_BYTES, 0, LENGTH_BYTES);
    }

    /** The length prefix and the frame body in one buffer, so that one frame is one write. */
    static ByteBuf prefixed(ByteBufAllocator alloc, byte[] body) {
        ByteBuf buf = alloc.ioBuffer(LENGTH_BYTES + body.length);
        buf.writeInt(body.length);
        buf.writeBytes(body);
        return buf;
    }

    /** Encodes {@code envelope} with its length prefix; throws {@code CodecException} as the codec does. */
    static ByteBuf encode(ByteBufAllocator alloc, MessageCodec codec, Envelope envelope) {
        return prefixed(alloc, codec.encode(envelope));
    }

    /** Decodes one frame body (without prefix); throws {@code CodecException} on malformed input. */
    static Envelope decode(MessageCodec codec, ByteBuf body) {
        int length = body.readableBytes();
        if (body.hasArray()) {
            return codec.decode(body.array(), body.arrayOffset() + body.readerIndex(), length);
        }
        return codec.decode(ByteBufUtil.getBytes(body, body.readerIndex(), length, false), 0, length);
    }
}
