package io.rattan.client.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Both forms of the codec on an {@link EmbeddedChannel}: each frame they write is the 4-byte length, then
 * {@link MessageCodec}'s body, byte for byte the same whether or not a scratch array is kept, and each decodes heap
 * and direct frames alike, frames larger than the scratch array's first size included.
 */
class EnvelopeCodecTest {

    private final MessageCodec codec = new MessageCodec();
    private final EmbeddedChannel withScratch = new EmbeddedChannel(EnvelopeCodec.withScratch(codec));
    private final EmbeddedChannel withoutScratch = new EmbeddedChannel(EnvelopeCodec.withoutScratch(codec));

    @AfterEach
    void release() {
        withScratch.finishAndReleaseAll();
        withoutScratch.finishAndReleaseAll();
    }

    @Test
    void bothWriteTheLengthThenTheBodyAndTheSameBytes() {
        for (Envelope envelope : envelopes()) {
            byte[] frame = framed(codec.encode(envelope));

            assertThat(written(withScratch, envelope)).as("with scratch").isEqualTo(frame);
            assertThat(written(withoutScratch, envelope)).as("without scratch").isEqualTo(frame);
        }
    }

    @Test
    void bothDecodeHeapAndDirectFrames() {
        for (Envelope envelope : envelopes()) {
            byte[] body = codec.encode(envelope);
            for (EmbeddedChannel channel : List.of(withScratch, withoutScratch)) {
                channel.writeInbound(Unpooled.wrappedBuffer(body));
                channel.writeInbound(Unpooled.directBuffer(body.length).writeBytes(body));

                assertThat((Envelope) channel.readInbound()).isEqualTo(envelope);
                assertThat((Envelope) channel.readInbound()).isEqualTo(envelope);
            }
        }
    }

    @Test
    void aFrameThatDoesNotDecodeSurfacesAsADecoderException() {
        for (EmbeddedChannel channel : List.of(withScratch, withoutScratch)) {
            assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFF, 1, 2})))
                    .isInstanceOf(DecoderException.class);
        }
    }

    /** A small envelope, ones above the scratch array's first 512 bytes, then a small one again. */
    private static List<Envelope> envelopes() {
        return List.of(
                new Envelope(null, 1, new ErrorReply(Status.UNAVAILABLE, "busy")),
                new Envelope(null, 2, new ClientPut(Id.ofName("a"), value(600), 60, Bytes.EMPTY)),
                new Envelope(null, 3, new ClientPut(Id.ofName("b"), value(5_000), 60, Bytes.EMPTY)),
                new Envelope(null, 4, new ClientPut(Id.ofName("c"), value(40), 60, Bytes.EMPTY)));
    }

    private static Bytes value(int bytes) {
        byte[] value = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            value[i] = (byte) i;
        }
        return Bytes.wrap(value);
    }

    private static byte[] written(EmbeddedChannel channel, Envelope envelope) {
        assertThat(channel.writeOutbound(envelope)).isTrue();
        ByteBuf frame = channel.readOutbound();
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    /** The length, 4 bytes big-endian, then the body, as docs/protocol.md lays a frame out. */
    private static byte[] framed(byte[] body) {
        ByteBuf frame = Unpooled.buffer(4 + body.length).writeInt(body.length).writeBytes(body);
        return ByteBufUtil.getBytes(frame);
    }
}
