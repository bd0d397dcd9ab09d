package io.rattan.core.owned;

import io.rattan.api.SignedOp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SignedBytesTest {

    private static final Id KEY = Id.fromHex("00112233445566778899aabbccddeeff01234567");

    @Test
    void layoutIsPinnedByteForByte() {
        byte[] b = SignedBytes.of(SignedOp.PUT, "default", KEY, 0x0102030405060708L, -1L, 1_700_000_000L,
                Bytes.utf8("hello").sha256());
        String expected = HexFormat.of().formatHex("rattan-value-v1".getBytes())
                + "01" + "07" + HexFormat.of().formatHex("default".getBytes())
                + "00112233445566778899aabbccddeeff01234567"
                + "0102030405060708" + "ffffffffffffffff" + "000000006553f100"
                + "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assertThat(HexFormat.of().formatHex(b)).isEqualTo(expected);
        assertThat(b).hasSize(100);
    }

    @Test
    void aRemoveSignsTheHashOfNoBytesAndOpTwo() {
        byte[] b = SignedBytes.of(SignedOp.REMOVE, "ns", KEY, 1, 2, 3, SignedBytes.EMPTY_DATA_HASH);
        assertThat(b[15]).isEqualTo((byte) 2);
        assertThat(b[16]).isEqualTo((byte) 2);
        assertThat(HexFormat.of().formatHex(b, b.length - 32, b.length))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void refusesWhatTheLayoutCannotHold() {
        Bytes hash = SignedBytes.EMPTY_DATA_HASH;
        assertThatThrownBy(() -> SignedBytes.of(SignedOp.PUT, "", KEY, 1, 1, 1, hash))
                .hasMessageContaining("1..255");
        assertThatThrownBy(() -> SignedBytes.of(SignedOp.PUT, "n".repeat(256), KEY, 1, 1, 1, hash))
                .hasMessageContaining("1..255");
        assertThatThrownBy(() -> SignedBytes.of(SignedOp.PUT, "default", KEY, 1, 1, 1, Bytes.utf8("short")))
                .hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> SignedBytes.of(SignedOp.PUT, "default", KEY, 1, 1, -1, hash))
                .hasMessageContaining("expiry");
    }
}
