package io.rattan.core.store;

import io.rattan.core.id.Id;
import io.rattan.core.util.Bytes;

/**
 * One entry of the multi-value store, identified by {@code (key, valueHash)}: a live value, or a tombstone left by
 * a remove.
 *
 * <p>A tombstone keeps no value bytes. Its {@code secretHash} is SHA-256 of the secret presented at remove time, so
 * it suppresses only a put of the same value made with that same secret hash; it cannot be planted to block values
 * the remover did not own.
 *
 * @param key             the DHT key
 * @param valueHash       SHA-256 of the value bytes (32 bytes)
 * @param value           the value bytes; empty for a tombstone
 * @param expiresAtMillis wall-clock expiry, epoch milliseconds
 * @param secretHash      SHA-256 of the put's secret (32 bytes), or empty when the value is not removable
 * @param tombstone       true for a remove marker
 */
public record StoredRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes secretHash,
                           boolean tombstone) {

    public static final int HASH_BYTES = 32;

    public StoredRecord {
        if (key == null || valueHash == null || value == null || secretHash == null) {
            throw new IllegalArgumentException("null field");
        }
        if (valueHash.length() != HASH_BYTES) {
            throw new IllegalArgumentException("valueHash must be 32 bytes");
        }
        if (!secretHash.isEmpty() && secretHash.length() != HASH_BYTES) {
            throw new IllegalArgumentException("secretHash must be empty or 32 bytes");
        }
        if (tombstone && !value.isEmpty()) {
            throw new IllegalArgumentException("a tombstone holds no value");
        }
    }

    /** A live value; its hash is computed here. */
    public static StoredRecord value(Id key, Bytes value, long expiresAtMillis, Bytes secretHash) {
        return new StoredRecord(key, value.sha256(), value, expiresAtMillis, secretHash, false);
    }

    public static StoredRecord tombstone(Id key, Bytes valueHash, long expiresAtMillis, Bytes secretHash) {
        return new StoredRecord(key, valueHash, Bytes.EMPTY, expiresAtMillis, secretHash, true);
    }

    public boolean isExpired(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }
}
