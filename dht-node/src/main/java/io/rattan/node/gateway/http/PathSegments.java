package io.rattan.node.gateway.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Percent-decoding of one segment of a request's path. Stateless and thread-safe. */
final class PathSegments {

    private PathSegments() {
    }

    /**
     * Percent-decodes one path segment as UTF-8. Unlike form decoding, {@code +} stays {@code +}. Characters the
     * request line carried raw are taken as the bytes they were read from, so a client that sends raw UTF-8 works too.
     *
     * @throws IllegalArgumentException with a message fit to show a user, for a bad escape or bytes that are not UTF-8
     */
    static String decode(String raw) {
        boolean plain = true;
        for (int i = 0; i < raw.length() && plain; i++) {
            plain = raw.charAt(i) != '%' && raw.charAt(i) < 0x80;
        }
        if (plain) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 1 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0 || raw.charAt(i + 1) >= 0x80 || raw.charAt(i + 2) >= 0x80) {
                    throw new IllegalArgumentException("bad percent-escape at character " + (i + 1) + " of "
                            + KeyParser.quote(raw) + ": '%' must be followed by two hex digits");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x100) {
                bytes.write(c);
            } else {
                throw new IllegalArgumentException("the path holds a character outside ISO-8859-1: "
                        + KeyParser.quote(raw));
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the path segment " + KeyParser.quote(raw)
                    + " does not decode to UTF-8 text");
        }
    }
}
