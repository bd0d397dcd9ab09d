package io.rattan.node.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * TCP framing shared by the peer and client protocols: a 4-byte big-endian length, then one codec frame body.
 * The length counts the body only, as {@code LengthFieldPrepender(4)} writes it. Stateless and thread-safe.
 */
public final class Frames {

    // The length prefix in front of every frame body.
    private static final int LENGTH_BYTES = 4;

    private Frames() {
    }

    /**
     * A decoder that cuts the stream into frame bodies, stripping the length. A length above {@code frameBytesMax}
     * (or negative) fails at once, before any body byte is buffered, with a {@code TooLongFrameException} or
     * {@code CorruptedFrameException}. A frame not whole {@code deadlineMillis} after its first byte closes the
     * connection ({@link DeadlineFrameDecoder}). One per connection: it buffers a partial frame.
     */
    static LengthFieldBasedFrameDecoder newFrameDecoder(int frameBytesMax, long deadlineMillis,
                                                        TransportListener listener) {
        // The decoder's limit counts the length field too.
        return new DeadlineFrameDecoder(frameBytesMax + LENGTH_BYTES, LENGTH_BYTES, deadlineMillis, listener);
    }

    /** The length prefix and the frame body in one buffer, so that one frame is one write. */
    public static ByteBuf prefixed(ByteBufAllocator alloc, byte[] body) {
        ByteBuf buf = alloc.ioBuffer(LENGTH_BYTES + body.length);
        buf.writeInt(body.length);
        buf.writeBytes(body);
        return buf;
    }
}
