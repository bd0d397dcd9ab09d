package io.rattan.node.gateway.http;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.StoredRecord;
import java.nio.charset.StandardCharsets;

/**
 * Parses the user-facing forms of keys and value hashes, shared by the HTTP gateway and the command line so that
 * both accept exactly the same spellings and reject the rest with the same messages.
 *
 * <p>A key is either 40 hex digits (the id itself, either case) or {@code name:<text>}, which stands for the SHA-1 of
 * the UTF-8 bytes of {@code <text>}. The text is taken as given: URL decoding, where it applies, is the caller's job.
 * A value hash is 64 hex digits, the SHA-256 of the value bytes. Stateless and thread-safe.
 */
public final class KeyParser {

    /** The prefix of a key given by name. */
    public static final String NAME_PREFIX = "name:";
    /** Longest name accepted, in UTF-8 bytes; bounds what a request can make the gateway hash. */
    public static final int NAME_BYTES_MAX = 1024;
    /** Hex digits in a value hash. */
    public static final int VALUE_HASH_DIGITS = 2 * StoredRecord.HASH_BYTES;
    /** How much of a rejected input an error message quotes. */
    private static final int QUOTE_CHARS_MAX = 48;

    private KeyParser() {
    }

    /**
     * Parses a key.
     *
     * @throws IllegalArgumentException with a message that says what is wrong, fit to show a user
     */
    public static Id parseKey(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("the key is empty: give 40 hex digits or name:<text>");
        }
        if (text.startsWith(NAME_PREFIX)) {
            String name = text.substring(NAME_PREFIX.length());
            if (name.isEmpty()) {
                throw new IllegalArgumentException("the key 'name:' has no text after the colon");
            }
            int nameBytes = name.getBytes(StandardCharsets.UTF_8).length;
            if (nameBytes > NAME_BYTES_MAX) {
                throw new IllegalArgumentException("a name key is at most " + NAME_BYTES_MAX
                        + " UTF-8 bytes, this one has " + nameBytes);
            }
            return Id.ofName(name);
        }
        if (text.length() != Id.DIGITS) {
            throw new IllegalArgumentException("the key " + quote(text) + " is neither 40 hex digits (it has "
                    + text.length() + " characters) nor name:<text>");
        }
        int bad = firstNonHex(text);
        if (bad >= 0) {
            throw new IllegalArgumentException("the key " + quote(text) + " is not 40 hex digits: character "
                    + (bad + 1) + " is '" + text.charAt(bad) + "'; to use a name, write name:<text>");
        }
        return Id.fromHex(text);
    }

    /**
     * Parses a value hash: 64 hex digits, either case.
     *
     * @throws IllegalArgumentException with a message that says what is wrong, fit to show a user
     */
    public static Bytes parseValueHash(String text) {
        if (text == null || text.length() != VALUE_HASH_DIGITS) {
            throw new IllegalArgumentException("a value hash is 64 hex digits (the SHA-256 of the value), got "
                    + (text == null ? "nothing" : quote(text) + " with " + text.length() + " characters"));
        }
        int bad = firstNonHex(text);
        if (bad >= 0) {
            throw new IllegalArgumentException("the value hash " + quote(text) + " is not 64 hex digits: character "
                    + (bad + 1) + " is '" + text.charAt(bad) + "'");
        }
        return Bytes.fromHex(text);
    }

    /** Index of the first character that is not an ASCII hex digit, or -1. */
    static int firstNonHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            // ASCII only: Character.digit would also accept other scripts' digits.
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex) {
                return i;
            }
        }
        return -1;
    }

    /** The input in quotes, cut short so that error messages stay bounded whatever was sent. */
    static String quote(String text) {
        return text.length() <= QUOTE_CHARS_MAX
                ? "'" + text + "'"
                : "'" + text.substring(0, QUOTE_CHARS_MAX) + "…'";
    }
}
