package io.rattan.node.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import io.rattan.node.gateway.http.KeyParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Set;

/**
 * Parses one line of a {@code rattan load} file: a JSON object with {@code key} (as the HTTP API and {@code rattan
 * put} take it: 40 hex digits or {@code name:<text>}), {@code value} (standard base64, as a get returns it), and
 * optionally {@code ttl} (seconds) and {@code secret} (text, used as UTF-8 as {@code rattan put --secret} does).
 * Anything else is refused, so that a misspelt {@code secret} cannot silently store a value nobody can remove.
 * Thread-safe.
 */
final class LoadLines {

    private static final Set<String> FIELDS = Set.of("key", "value", "ttl", "secret");
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** How much of a parser's message a report quotes. */
    private static final int MESSAGE_CHARS_MAX = 120;

    /**
     * A line that parsed: what to put.
     *
     * @param keyText the key as written, for the report
     * @param secret  the secret's UTF-8 bytes, or null
     */
    record Entry(long number, String keyText, Id key, byte[] value, int ttlSeconds, byte[] secret, byte[] raw) {
    }

    /** A line that cannot be put: {@code reason} names the kind (the report counts by it), {@code detail} says why. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;
        private final String reason;

        Malformed(String reason, String detail) {
            super(detail, null, false, false);
            this.reason = reason;
        }

        String reason() {
            return reason;
        }
    }

    private final int ttlDefault;
    private final int ttlMax;

    /** @param ttlDefault a line's TTL when it has none; {@code ttlMax} the longest a line may ask for */
    LoadLines(int ttlDefault, int ttlMax) {
        this.ttlDefault = ttlDefault;
        this.ttlMax = ttlMax;
    }

    /** The entry on line {@code number}, or why there is none. */
    Entry parse(long number, byte[] raw) throws Malformed {
        JsonNode node;
        try {
            node = MAPPER.readTree(raw);
        } catch (JsonProcessingException e) {
            throw new Malformed("bad JSON", shorten(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new Malformed("bad JSON", shorten(String.valueOf(e.getMessage())));
        }
        if (node == null || !node.isObject()) {
            throw new Malformed("bad JSON", "not a JSON object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new Malformed("unknown field", "unknown field '" + shorten(name)
                        + "' (a line has key, value, and optionally ttl and secret)");
            }
        }
        String keyText = text(node, "key");
        Id key;
        try {
            key = KeyParser.parseKey(keyText);
        } catch (IllegalArgumentException e) {
            throw new Malformed("bad key", e.getMessage());
        }
        return new Entry(number, keyText, key, value(node), ttl(node), secret(node), raw);
    }

    private static byte[] value(JsonNode node) throws Malformed {
        byte[] value;
        try {
            value = Base64.getDecoder().decode(text(node, "value"));
        } catch (IllegalArgumentException e) {
            throw new Malformed("bad base64", "value is not standard base64: " + e.getMessage());
        }
        if (value.length == 0) {
            throw new Malformed("empty value", "value is empty");
        }
        return value;
    }

    private int ttl(JsonNode node) throws Malformed {
        JsonNode ttl = node.get("ttl");
        if (ttl == null || ttl.isNull()) {
            return ttlDefault;
        }
        if (!ttl.isIntegralNumber() || !ttl.canConvertToLong() || ttl.asLong() < 1) {
            throw new Malformed("bad ttl", "ttl must be a whole number of seconds, at least 1, got " + shorten(
                    ttl.toString()));
        }
        if (ttl.asLong() > ttlMax) {
            throw new Malformed("ttl above maximum", "ttl " + ttl.asLong() + " s is above the nodes' longest, "
                    + ttlMax + " s (--ttl-seconds-max)");
        }
        return ttl.intValue();
    }

    private static byte[] secret(JsonNode node) throws Malformed {
        JsonNode secret = node.get("secret");
        if (secret == null || secret.isNull()) {
            return null;
        }
        if (!secret.isTextual() || secret.textValue().isEmpty()) {
            throw new Malformed("bad secret", "secret must be non-empty text");
        }
        byte[] bytes = secret.textValue().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > RattanClient.SECRET_BYTES_MAX) {
            throw new Malformed("bad secret", "secret is " + bytes.length + " bytes, at most "
                    + RattanClient.SECRET_BYTES_MAX);
        }
        return bytes;
    }

    private static String text(JsonNode node, String field) throws Malformed {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw new Malformed("no " + field, "no '" + field + "'");
        }
        if (!v.isTextual()) {
            throw new Malformed("bad " + field, "'" + field + "' must be a string");
        }
        return v.textValue();
    }

    private static String shorten(String s) {
        String oneLine = s.replaceAll("\\s+", " ");
        return oneLine.length() <= MESSAGE_CHARS_MAX ? oneLine : oneLine.substring(0, MESSAGE_CHARS_MAX) + "…";
    }
}
