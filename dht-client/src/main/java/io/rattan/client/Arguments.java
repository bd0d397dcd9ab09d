package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.core.codec.MessageCodec;
import java.time.Duration;
import java.util.Objects;

/**
 * The checks {@link RattanClient}'s public methods make on their arguments before a call starts: each rejects a
 * value the wire protocol cannot carry (or that means nothing) with an {@link IllegalArgumentException} in the
 * caller's thread, rather than a failed future later. Kept apart so that the client's methods read as what they send.
 */
final class Arguments {

    private Arguments() {
    }

    /** A positive ttl in whole seconds, rounded up, as the wire carries it. */
    static int ttlSeconds(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
        if (seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ttl must be at most " + Integer.MAX_VALUE + " s, got " + ttl);
        }
        return (int) seconds;
    }

    /** The TTL of each put of a permanent value: whole seconds, at least {@code PERMANENT_TTL_MIN}. */
    static Duration permanentTtl(Duration ttl) {
        int seconds = ttlSeconds(ttl);
        if (seconds < RattanClient.PERMANENT_TTL_MIN.getSeconds()) {
            throw new IllegalArgumentException("a permanent value is put again every half TTL: its ttl must be at "
                    + "least " + RattanClient.PERMANENT_TTL_MIN.getSeconds() + " s, got " + ttl);
        }
        return Duration.ofSeconds(seconds);
    }

    /** Rejects an empty secret (null, not empty, means none) and one too long for a remove to send. */
    static void checkSecret(byte[] secret) {
        if (secret.length == 0) {
            throw new IllegalArgumentException(
                    "a secret must not be empty (pass null to put a value nobody can remove)");
        }
        if (secret.length > RattanClient.SECRET_BYTES_MAX) {
            throw new IllegalArgumentException("a secret has at most " + RattanClient.SECRET_BYTES_MAX + " bytes, got "
                    + secret.length);
        }
    }

    /** Rejects an empty value hash and one longer than the wire carries. */
    static void checkValueHash(Bytes valueHash) {
        if (valueHash.isEmpty() || valueHash.length() > MessageCodec.HASH_BYTES_MAX) {
            throw new IllegalArgumentException("a value hash has 1.." + MessageCodec.HASH_BYTES_MAX + " bytes, got "
                    + valueHash.length());
        }
    }

    /** Rejects a page size outside 1..{@link RattanClient#GET_PAGE_VALUES}. */
    static void checkPageValues(int maxValues) {
        if (maxValues < 1 || maxValues > RattanClient.GET_PAGE_VALUES) {
            throw new IllegalArgumentException("maxValues must be 1.." + RattanClient.GET_PAGE_VALUES + ", got "
                    + maxValues);
        }
    }

    /** The placemark to send: empty for null (the first page); rejects one longer than the wire carries. */
    static Bytes placemark(Bytes placemark) {
        Bytes mark = placemark == null ? Bytes.EMPTY : placemark;
        if (mark.length() > MessageCodec.HASH_BYTES_MAX) {
            throw new IllegalArgumentException("a placemark has at most " + MessageCodec.HASH_BYTES_MAX + " bytes");
        }
        return mark;
    }
}
