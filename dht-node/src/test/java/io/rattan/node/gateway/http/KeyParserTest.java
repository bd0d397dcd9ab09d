package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import org.junit.jupiter.api.Test;

class KeyParserTest {

    private static final String HEX = "0123456789abcdef0123456789abcdef01234567";

    @Test
    void hexKeysParseInEitherCase() {
        assertThat(KeyParser.parseKey(HEX)).isEqualTo(Id.fromHex(HEX));
        assertThat(KeyParser.parseKey(HEX.toUpperCase())).isEqualTo(Id.fromHex(HEX));
    }

    @Test
    void nameKeysAreTheSha1OfTheirText() {
        assertThat(KeyParser.parseKey("name:hello world")).isEqualTo(Id.ofName("hello world"));
        assertThat(KeyParser.parseKey("name:ünïcødé/+")).isEqualTo(Id.ofName("ünïcødé/+"));
        // A name may itself look like hex: the prefix decides.
        assertThat(KeyParser.parseKey("name:" + HEX)).isEqualTo(Id.ofName(HEX));
    }

    @Test
    void malformedKeysAreRejectedWithAPreciseMessage() {
        assertThatThrownBy(() -> KeyParser.parseKey("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> KeyParser.parseKey("name:")).hasMessageContaining("no text after the colon");
        assertThatThrownBy(() -> KeyParser.parseKey(HEX.substring(1)))
                .hasMessageContaining("neither 40 hex digits (it has 39 characters) nor name:<text>");
        assertThatThrownBy(() -> KeyParser.parseKey("g" + HEX.substring(1)))
                .hasMessageContaining("character 1 is 'g'");
        assertThatThrownBy(() -> KeyParser.parseKey("Name:x")).hasMessageContaining("nor name:<text>");
        assertThatThrownBy(() -> KeyParser.parseKey("name:" + "x".repeat(KeyParser.NAME_BYTES_MAX + 1)))
                .hasMessageContaining("at most 1024 UTF-8 bytes");
    }

    @Test
    void onlyAsciiHexDigitsCount() {
        // Arabic-Indic digit three: Character.digit accepts it, a key must not.
        String arabic = "\u0663".repeat(40);
        assertThatThrownBy(() -> KeyParser.parseKey(arabic)).hasMessageContaining("character 1");
        assertThatThrownBy(() -> KeyParser.parseValueHash("\u0663".repeat(64))).hasMessageContaining("character 1");
    }

    @Test
    void longInputIsQuotedShort() {
        assertThatThrownBy(() -> KeyParser.parseKey("z".repeat(5000)))
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    }

    @Test
    void valueHashesAre64HexDigits() {
        Bytes hash = Bytes.utf8("v").sha256();
        assertThat(KeyParser.parseValueHash(hash.toHex())).isEqualTo(hash);
        assertThat(KeyParser.parseValueHash(hash.toHex().toUpperCase())).isEqualTo(hash);
        assertThatThrownBy(() -> KeyParser.parseValueHash(hash.toHex().substring(2)))
                .hasMessageContaining("64 hex digits").hasMessageContaining("62 characters");
        assertThatThrownBy(() -> KeyParser.parseValueHash("x" + hash.toHex().substring(1)))
                .hasMessageContaining("character 1 is 'x'");
        assertThatThrownBy(() -> KeyParser.parseValueHash(null)).hasMessageContaining("got nothing");
    }
}
