package io.rattan.core.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rattan.core.msg.Envelope;

/**
 * Coverage-guided fuzzing of the peer and client frame decoder (issue 18): any bytes either decode or fail with a
 * {@link CodecException}, nothing else, and what decodes re-encodes to exactly the same bytes (the codec is
 * canonical). A normal build replays the committed corpus in
 * {@code src/test/resources/io/rattan/core/codec/MessageCodecFuzzTestInputs/frames/}; to fuzz, see
 * docs/security.md ({@code JAZZER_FUZZ=1}).
 */
class MessageCodecFuzzTest {

    private static final MessageCodec CODEC = new MessageCodec();

    @FuzzTest(maxExecutions = 1_000_000)
    void frames(byte[] frame) {
        Envelope envelope;
        try {
            envelope = CODEC.decode(frame);
        } catch (CodecException e) {
            return;
        }
        assertThat(CODEC.at(frame[0] & 0xFF).encode(envelope)).isEqualTo(frame);
    }
}
