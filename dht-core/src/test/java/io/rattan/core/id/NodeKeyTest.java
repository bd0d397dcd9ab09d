package io.rattan.core.id;

import io.rattan.api.Id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NodeKeyTest {

    private static final byte[] MESSAGE = "a nonce and a contact".getBytes(StandardCharsets.US_ASCII);

    @Test
    void theIdIsTheSha1OfThePublicKeyAndASeedAlwaysGivesTheSameKey() {
        NodeKey key = NodeKey.draw(new SplittableRandom(7));

        assertThat(key.id()).isEqualTo(Id.sha1(key.publicKey().toByteArray()));
        assertThat(NodeKey.draw(new SplittableRandom(7)).id()).isEqualTo(key.id());
        assertThat(NodeKey.ofSeed(key.seed()).publicKey()).isEqualTo(key.publicKey());
        assertThat(NodeKey.draw(new SplittableRandom(8)).id()).isNotEqualTo(key.id());
        assertThat(key.toString()).doesNotContain(key.seed().toHex());
    }

    @Test
    void aSignatureVerifiesUnderItsKeyOnlyAndOverItsMessageOnly() {
        NodeKey key = NodeKey.draw(new SplittableRandom(1));
        NodeKey other = NodeKey.draw(new SplittableRandom(2));
        Bytes sig = key.sign(MESSAGE);

        assertThat(sig.length()).isEqualTo(NodeKey.SIGNATURE_BYTES);
        assertThat(key.sign(MESSAGE)).as("RFC 8032 signing is deterministic").isEqualTo(sig);
        assertThat(NodeKey.verifies(key.publicKey(), MESSAGE, sig)).isTrue();
        assertThat(NodeKey.verifies(other.publicKey(), MESSAGE, sig)).isFalse();
        assertThat(NodeKey.verifies(key.publicKey(), "another".getBytes(StandardCharsets.US_ASCII), sig)).isFalse();
        assertThat(NodeKey.verifies(Bytes.wrap(new byte[31]), MESSAGE, sig)).as("a short key").isFalse();
        assertThat(NodeKey.verifies(key.publicKey(), MESSAGE, Bytes.wrap(new byte[64]))).isFalse();
    }

    @Test
    void aSeedIs32Bytes() {
        assertThatThrownBy(() -> NodeKey.ofSeed(Bytes.wrap(new byte[31])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32 bytes, got 31");
    }
}
