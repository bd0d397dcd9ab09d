package io.rattan.node.netty;

import static io.rattan.node.netty.TestMessages.ping;
import static io.rattan.node.netty.TestMessages.put;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.api.Status;
import io.rattan.client.netty.EnvelopeCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The node's binary pipeline below the handler (byte counting, framing, the envelope codec, the closer of malformed
 * connections) on an {@link EmbeddedChannel}: what reaches the handler, what is refused, and what goes out. Frames
 * are built by hand (4-byte length, then the body), as {@code docs/protocol.md} lays them out, not with the code
 * under test.
 */
class EnvelopePipelineTest {

    private static final int FRAME_BYTES_MAX = 256;

    private final MessageCodec codec = new MessageCodec(FRAME_BYTES_MAX);
    private final Counts counts = new Counts();
    private final EmbeddedChannel channel = newChannel(codec, counts);

    @AfterEach
    void release() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aWellFormedFrameDecodesToItsEnvelope() {
        channel.writeInbound(frame(codec.encode(ping(7))));

        assertThat((Envelope) channel.readInbound()).isEqualTo(ping(7));
        assertThat(channel.isOpen()).isTrue();
        assertThat(counts.rejected.get()).isZero();
    }

    @Test
    void writesInTheVersionTheOtherSideLastSpoke() {
        Envelope reply = new Envelope(null, 7, new ErrorReply(Status.NOT_FOUND, "none"));
        channel.writeOutbound(reply);
        assertThat(firstByteOut()).as("before anything is read: the codec's own").isEqualTo(MessageCodec.VERSION);

        channel.writeInbound(frame(codec.at(MessageCodec.VERSION_OLDEST).encode(ping(7))));
        assertThat((Envelope) channel.readInbound()).isEqualTo(ping(7));
        channel.writeOutbound(reply);
        assertThat(firstByteOut()).as("after a frame of the version before").isEqualTo(MessageCodec.VERSION_OLDEST);

        channel.writeInbound(frame(codec.encode(ping(8))));
        assertThat((Envelope) channel.readInbound()).isEqualTo(ping(8));
        channel.writeOutbound(reply);
        assertThat(firstByteOut()).as("after a frame of the newest again").isEqualTo(MessageCodec.VERSION);
    }

    /** The version byte of the next frame written out (after its 4-byte length). */
    private int firstByteOut() {
        ByteBuf out = channel.readOutbound();
        try {
            return out.getUnsignedByte(out.readerIndex() + 4);
        } finally {
            out.release();
        }
    }

    @Test
    void framesSplitAcrossReadsAndSharingOneReadAllDecode() {
        byte[] first = codec.encode(ping(1));
        byte[] second = codec.encode(put(2, 40));
        ByteBuf both = frame(first).writeBytes(frame(second));
        ByteBuf head = both.readRetainedSlice(3);

        channel.writeInbound(head);
        assertThat((Object) channel.readInbound()).isNull();
        channel.writeInbound(both);

        assertThat((Envelope) channel.readInbound()).isEqualTo(ping(1));
        assertThat((Envelope) channel.readInbound()).isEqualTo(put(2, 40));
        assertThat(counts.received.get()).isEqualTo(8 + first.length + second.length);
    }

    @Test
    void aMalformedFrameIsRejectedOnceAndClosesTheChannel() {
        channel.writeInbound(frame(new byte[] {(byte) 0xFF, (byte) 0xFF, 1, 2, 3}));

        assertThat((Object) channel.readInbound()).isNull();
        assertThat(channel.isOpen()).isFalse();
        assertThat(counts.rejected.get()).isEqualTo(1);
    }

    @Test
    void framesAfterAMalformedOneInTheSameReadAreDropped() {
        ByteBuf stream = frame(codec.encode(ping(1)))
                .writeBytes(frame(new byte[] {9, 9, 9}))
                .writeBytes(frame(codec.encode(ping(3))));

        channel.writeInbound(stream);

        assertThat((Envelope) channel.readInbound()).isEqualTo(ping(1));
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(channel.isOpen()).isFalse();
        assertThat(counts.rejected.get()).isEqualTo(1);
    }

    @Test
    void anOversizedLengthIsRefusedOnTheLengthAloneBeforeAnyBodyIsBuffered() {
        // The largest length there is, and not one body byte: a decoder that buffered or allocated for the body
        // would still be waiting here, with the channel open.
        channel.writeInbound(Unpooled.buffer(4).writeInt(Integer.MAX_VALUE));

        assertThat(channel.isOpen()).isFalse();
        assertThat(counts.rejected.get()).isEqualTo(1);
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void aLengthOneAboveTheLimitIsRefusedAndOneAtTheLimitIsNot() {
        EmbeddedChannel atLimit = newChannel(codec, new Counts());
        atLimit.writeInbound(Unpooled.buffer(4).writeInt(FRAME_BYTES_MAX));
        assertThat(atLimit.isOpen()).isTrue();
        atLimit.finishAndReleaseAll();

        channel.writeInbound(Unpooled.buffer(4).writeInt(FRAME_BYTES_MAX + 1));
        assertThat(channel.isOpen()).isFalse();
        assertThat(counts.rejected.get()).isEqualTo(1);
    }

    @Test
    void aNegativeLengthIsRefused() {
        channel.writeInbound(Unpooled.buffer(4).writeInt(-1));

        assertThat(channel.isOpen()).isFalse();
        assertThat(counts.rejected.get()).isEqualTo(1);
    }

    @Test
    void anEncodedEnvelopeIsOneLengthPrefixedFrameThatDecodesToItself() {
        Envelope reply = new Envelope(null, 42, new ErrorReply(Status.UNAVAILABLE, "busy"));

        assertThat(channel.writeOutbound(reply)).isTrue();
        ByteBuf written = channel.readOutbound();
        byte[] body = codec.encode(reply);
        assertThat(written.readableBytes()).isEqualTo(4 + body.length);
        assertThat(written.getInt(0)).isEqualTo(body.length);
        assertThat(counts.sent.get()).isEqualTo(4 + body.length);
        assertThat((Object) channel.readOutbound()).isNull();

        EmbeddedChannel peer = newChannel(codec, new Counts());
        peer.writeInbound(written);
        assertThat((Envelope) peer.readInbound()).isEqualTo(reply);
        peer.finishAndReleaseAll();
    }

    @Test
    void decodesFromDirectBuffersToo() {
        byte[] body = codec.encode(put(5, 100));
        ByteBuf frame = Unpooled.directBuffer().writeInt(body.length).writeBytes(body);
        assertThat(frame.hasArray()).isFalse();

        channel.writeInbound(frame);

        assertThat((Envelope) channel.readInbound()).isEqualTo(put(5, 100));
    }

    private static EmbeddedChannel newChannel(MessageCodec codec, Counts counts) {
        return new EmbeddedChannel(new ByteCountingHandler(counts),
                Frames.newFrameDecoder(codec.frameBytesMax(), 60_000, counts),
                EnvelopeCodec.withoutScratch(codec), new MalformedFrameCloser(counts, "test connection"));
    }

    private static ByteBuf frame(byte[] body) {
        return Unpooled.buffer().writeInt(body.length).writeBytes(body);
    }

    /** What the pipeline reported. */
    private static final class Counts implements TransportListener {
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        final AtomicLong sent = new AtomicLong();

        @Override
        public void frameRejected() {
            rejected.incrementAndGet();
        }

        @Override
        public void bytesReceived(long bytes) {
            received.addAndGet(bytes);
        }

        @Override
        public void bytesSent(long bytes) {
            sent.addAndGet(bytes);
        }
    }
}
