package io.rattan.client.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.List;

/**
 * The codec of every binary Rattan connection, a client's and a node's alike, between the framing (a decoder that
 * cuts the stream by the 4-byte length and strips it) and a thin handler. Turns one length-stripped frame into an
 * {@link Envelope}, and an envelope into a whole frame, its 4-byte big-endian length prefix included, in one pooled
 * buffer, so that one frame is one buffer to write. A frame that does not decode surfaces as a
 * {@code DecoderException} for the handlers after this one to act on; an envelope that does not encode fails its
 * write with an {@code EncoderException}.
 *
 * <p>Either {@link #withScratch} or {@link #withoutScratch}: the frame bytes are the same, only what is allocated on
 * the way differs.
 *
 * <p>Frames are written in the version of the last frame read on the connection, the codec's own until one is read:
 * a gateway answers each client in the version it spoke (a rolling upgrade), and a client hears its own.
 *
 * <p>One instance per connection: the scratch array and the version are confined to the connection's event loop.
 */
public final class EnvelopeCodec extends MessageToMessageCodec<ByteBuf, Envelope> {

    private static final int LENGTH_FIELD_BYTES = 4;
    private static final int SCRATCH_BYTES_MIN = 512;

    private final MessageCodec codec;
    private final boolean reuseScratch;
    private byte[] scratch;
    // The codec of the version the peer last spoke; the reading codec accepts it, so it can write it.
    private MessageCodec speaking;
    private int lastRead;

    private EnvelopeCodec(MessageCodec codec, boolean reuseScratch) {
        this.codec = codec;
        this.speaking = codec;
        this.lastRead = codec.version();
        this.reuseScratch = reuseScratch;
        this.scratch = reuseScratch ? new byte[SCRATCH_BYTES_MIN] : null;
    }

    /**
     * A codec that encodes frames into and decodes them from a scratch array of the connection's, grown to the
     * largest frame seen, so that a request or reply allocates no array of its own on the way (the codec copies what
     * it keeps). For a client's few connections: the array is kept as long as the connection.
     */
    public static EnvelopeCodec withScratch(MessageCodec codec) {
        return new EnvelopeCodec(codec, true);
    }

    /**
     * A codec that gives each frame an array of its own and keeps none. For a server's thousands of connections: an
     * array kept by each, up to the frame limit, could add up to thousands of times that limit.
     */
    public static EnvelopeCodec withoutScratch(MessageCodec codec) {
        return new EnvelopeCodec(codec, false);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Envelope envelope, List<Object> out) {
        byte[] body;
        int size;
        if (reuseScratch) {
            size = speaking.encodedSize(envelope);
            body = scratch(size);
            speaking.encode(envelope, body, 0);
        } else {
            body = speaking.encode(envelope);
            size = body.length;
        }
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
        } else {
            byte[] body = reuseScratch ? scratch(length) : new byte[length];
            frame.getBytes(frame.readerIndex(), body, 0, length);
            out.add(codec.decode(body, 0, length));
        }
        // Decoded, so the first byte is a version the codec accepts, or that of a handshake frame of a peer of the
        // version before ours (which writes its handshake in the version before its own): we answer it in ours - 1.
        lastRead = frame.getUnsignedByte(frame.readerIndex());
        int answerIn = codec.accepts(lastRead) ? lastRead : codec.oldestAccepted();
        if (answerIn != speaking.version()) {
            speaking = codec.at(answerIn);
        }
    }

    /** The protocol version of the last frame read on this connection, or the codec's own before the first. */
    public int peerVersion() {
        return lastRead;
    }

    /** The scratch array, grown to hold {@code size} bytes; frames are bounded by the codec, so it is too. */
    private byte[] scratch(int size) {
        if (scratch.length < size) {
            scratch = new byte[Math.max(size, Math.min(2 * scratch.length, codec.frameBytesMax()))];
        }
        return scratch;
    }
}
