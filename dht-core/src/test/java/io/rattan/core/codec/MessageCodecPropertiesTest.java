package io.rattan.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

class MessageCodecPropertiesTest {

    private final MessageCodec codec = new MessageCodec();

    @Provide
    Arbitrary<Envelope> envelopes() {
        return MessageArbitraries.envelopes();
    }

    @Example
    void everyMessageTypeHasAGenerator() {
        assertThat(MessageArbitraries.messagesByType().keySet()).isEqualTo(EnumSet.allOf(MessageType.class));
    }

    @Property(tries = 2000)
    void everyEnvelopeRoundTrips(@ForAll("envelopes") Envelope envelope) {
        byte[] frame = codec.encode(envelope);

        assertThat(codec.encodedSize(envelope)).isEqualTo(frame.length);
        assertThat(codec.decode(frame)).isEqualTo(envelope);
    }

    @Property(tries = 500)
    void decodesAFrameInsideALargerArray(@ForAll("envelopes") Envelope envelope, @ForAll @IntRange(max = 50) int before,
                                         @ForAll @IntRange(max = 50) int after) {
        byte[] frame = codec.encode(envelope);
        byte[] padded = new byte[before + frame.length + after];
        Arrays.fill(padded, (byte) 0xA5);
        System.arraycopy(frame, 0, padded, before, frame.length);

        assertThat(codec.decode(padded, before, frame.length)).isEqualTo(envelope);
    }

    @Property(tries = 5000)
    void randomBytesDecodeOrAreRejected(@ForAll @Size(max = 300) byte[] frame) {
        decodesCanonicallyOrIsRejected(frame);
    }

    /** Random bytes rarely get past the version byte; these start with a valid header and so reach the bodies. */
    @Property(tries = 5000)
    void randomBodiesDecodeOrAreRejected(@ForAll MessageType type, @ForAll @IntRange(max = 1) int flags,
                                         @ForAll @Size(max = 300) byte[] rest) {
        byte[] frame = new byte[3 + rest.length];
        frame[0] = MessageCodec.VERSION;
        frame[1] = (byte) type.tag();
        frame[2] = (byte) flags;
        System.arraycopy(rest, 0, frame, 3, rest.length);
        decodesCanonicallyOrIsRejected(frame);
    }

    @Property(tries = 3000)
    void mutatedFramesDecodeOrAreRejected(@ForAll("envelopes") Envelope envelope, @ForAll Random random,
                                          @ForAll @IntRange(min = 1, max = 4) int mutations) {
        byte[] frame = codec.encode(envelope);
        for (int i = 0; i < mutations; i++) {
            frame = mutate(frame, random);
        }
        decodesCanonicallyOrIsRejected(frame);
        // Some mutants must still decode (a changed id, a flipped boolean), or the property tests only rejection.
        Statistics.coverage(c -> c.check(true).count(n -> n > 100));
    }

    /**
     * A node reads handshake frames of the version before its oldest (a node of V-1 writes its handshake in V-2) and
     * writes none: a mutant whose version byte became that one must be judged as read, not written again. Random
     * mutation found it once in a fresh clone (jqwik seed -1077058882010511803), which then failed with "version 13
     * is not accepted".
     */
    @Example
    void aHandshakeFrameOfTheVersionBeforeTheOldestIsReadAndNeverWritten() {
        for (MessageType type : EnumSet.of(MessageType.HELLO, MessageType.CHALLENGE, MessageType.WELCOME)) {
            Envelope hello = new Envelope(null, 1, MessageArbitraries.messagesByType().get(type).sample());
            byte[] frame = codec.encode(hello);
            frame[0] = (byte) (codec.oldestAccepted() - 1);
            decodesCanonicallyOrIsRejected(frame);
        }
    }

    @Property(tries = 1000)
    void everyTruncationIsRejected(@ForAll("envelopes") Envelope envelope, @ForAll Random random) {
        byte[] frame = codec.encode(envelope);
        int length = random.nextInt(frame.length);

        assertThatThrownBy(() -> codec.decode(frame, 0, length)).isInstanceOf(CodecException.class);
    }

    /**
     * The encoding is canonical, so a mutated frame that still decodes must re-encode to exactly its bytes; and any
     * exception but {@link CodecException} escapes and fails the property.
     */
    private void decodesCanonicallyOrIsRejected(byte[] frame) {
        Envelope decoded;
        try {
            decoded = codec.decode(frame);
        } catch (CodecException expected) {
            Statistics.collect(false);
            return;
        }
        Statistics.collect(true);
        int version = frame[0] & 0xFF;
        if (!codec.accepts(version)) {
            // Read, never written by this build: only a handshake of the version before the oldest gets here.
            assertThat(version).isEqualTo(codec.oldestAccepted() - 1);
            assertThat(decoded.body().type()).isIn(MessageType.HELLO, MessageType.CHALLENGE,
                    MessageType.CHALLENGE_ANSWER, MessageType.WELCOME);
            return;
        }
        // Canonical within a version: a frame of the version before is written again in that version.
        assertThat(codec.at(version).encode(decoded)).isEqualTo(frame);
    }

    private static byte[] mutate(byte[] frame, Random random) {
        int at = frame.length == 0 ? 0 : random.nextInt(frame.length);
        switch (random.nextInt(6)) {
            case 0 -> {
                byte[] copy = frame.clone();
                if (copy.length > 0) {
                    copy[at] = (byte) random.nextInt(256);
                }
                return copy;
            }
            case 1 -> {
                // The values most likely to break a length, a count, a boolean or a sign.
                byte[] copy = frame.clone();
                if (copy.length > 0) {
                    int[] interesting = {0, 1, 2, 0x7F, 0x80, 0xFF};
                    copy[at] = (byte) interesting[random.nextInt(interesting.length)];
                }
                return copy;
            }
            case 2 -> {
                return Arrays.copyOf(frame, at);
            }
            case 3 -> {
                byte[] longer = Arrays.copyOf(frame, frame.length + 1 + random.nextInt(8));
                for (int i = frame.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                return longer;
            }
            case 4 -> {
                byte[] inserted = new byte[frame.length + 1];
                System.arraycopy(frame, 0, inserted, 0, at);
                inserted[at] = (byte) random.nextInt(256);
                System.arraycopy(frame, at, inserted, at + 1, frame.length - at);
                return inserted;
            }
            default -> {
                if (frame.length == 0) {
                    return frame;
                }
                byte[] deleted = new byte[frame.length - 1];
                System.arraycopy(frame, 0, deleted, 0, at);
                System.arraycopy(frame, at + 1, deleted, at, frame.length - at - 1);
                return deleted;
            }
        }
    }
}
