package io.rattan.core.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.core.msg.SecretBinding;

/**
 * One entry of the multi-value store, identified by {@code (key, slot())}: a live value, or a tombstone left by
 * a remove. The slot is the value hash for a value without a binding, and commits to the binding for one with it
 * ({@link #slot}).
 *
 * <p>A removable value holds its {@code binding}, {@code SHA-256(secret ‖ key ‖ valueHash)}
 * ({@link io.rattan.core.msg.SecretBinding}), never the secret. A tombstone keeps no value bytes and no binding: it
 * holds the remove's {@code secret} itself, so every node it reaches can check that it opens the binding of the
 * value it removes, and one made from what a path node saw (a binding) removes nothing. A tombstone with an empty
 * secret exists only where a store of on-disk format 1 was migrated (its secret was never stored); every other node
 * refuses it.
 *
 * @param key             the DHT key
 * @param valueHash       SHA-256 of the value bytes (32 bytes)
 * @param value           the value bytes; empty for a tombstone
 * @param expiresAtMillis wall-clock expiry, epoch milliseconds
 * @param binding         a value's binding (32 bytes), or empty when the value is not removable; empty for a tombstone
 * @param secret          a tombstone's secret (at most {@value #SECRET_BYTES_MAX} bytes); empty for a value
 * @param tombstone       true for a remove marker
 * @param stamp           an owned record's owner stamp, or null for an unowned one. An owned record's
 *                        {@code valueHash} is its slot's name (not the hash of its bytes), its expiry the signed one;
 *                        it has no binding and no secret: the owner's signature rules it (docs/owned-values.md).
 * @param slot            the record's name under its key ({@link #slot}); null to compute it. Kept, not derived on
 *                        each call: a page of values put with secrets would hash every one of them at every read.
 *                        A store passes the slot it read the record under; it must be the hash for a record named by
 *                        its hash and differ from it for one named by slot, which is all the constructor can check
 *                        without hashing.
 */
public record StoredRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes binding, Bytes secret,
                           boolean tombstone, OwnerStamp stamp, Bytes slot) {

    public static final int HASH_BYTES = 32;
    /** The longest removal secret, as the wire protocol bounds it. */
    public static final int SECRET_BYTES_MAX = 1024;

    public StoredRecord {
        if (key == null || valueHash == null || value == null || binding == null || secret == null) {
            throw new IllegalArgumentException("null field");
        }
        if (valueHash.length() != HASH_BYTES) {
            throw new IllegalArgumentException("valueHash must be 32 bytes");
        }
        if (!binding.isEmpty() && binding.length() != HASH_BYTES) {
            throw new IllegalArgumentException("binding must be empty or 32 bytes");
        }
        if (secret.length() > SECRET_BYTES_MAX) {
            throw new IllegalArgumentException("secret above " + SECRET_BYTES_MAX + " bytes");
        }
        if (tombstone && (!value.isEmpty() || !binding.isEmpty())) {
            throw new IllegalArgumentException("a tombstone holds no value and no binding");
        }
        if (!tombstone && !secret.isEmpty()) {
            throw new IllegalArgumentException("a value never holds a secret");
        }
        if (stamp != null && (!binding.isEmpty() || !secret.isEmpty())) {
            throw new IllegalArgumentException("an owned record holds no binding and no secret");
        }
        if (slot == null) {
            slot = SecretBinding.slotOf(key, valueHash, binding, secret, tombstone, stamp != null);
        } else if (slot.equals(valueHash) != namedByHash(binding, secret, stamp)) {
            throw new IllegalArgumentException("slot " + slot + " cannot name this record");
        }
    }

    /** An unowned or owned record whose slot is computed from its fields. */
    public StoredRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes binding, Bytes secret,
                        boolean tombstone, OwnerStamp stamp) {
        this(key, valueHash, value, expiresAtMillis, binding, secret, tombstone, stamp, null);
    }

    /** Whether a record is named by its value hash: owned, or with neither a binding nor a secret. */
    private static boolean namedByHash(Bytes binding, Bytes secret, OwnerStamp stamp) {
        return stamp != null || (binding.isEmpty() && secret.isEmpty());
    }

    /** An unowned record. */
    public StoredRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes binding, Bytes secret,
                        boolean tombstone) {
        this(key, valueHash, value, expiresAtMillis, binding, secret, tombstone, null);
    }

    /**
     * An owned record in {@code slot}: the owner's value {@code data}, or (with {@code removed}) its tombstone, which
     * holds no data; it expires when the stamp says.
     */
    public static StoredRecord owned(Id key, Bytes slot, Bytes data, OwnerStamp stamp, boolean removed) {
        return new StoredRecord(key, slot, removed ? Bytes.EMPTY : data, stamp.expiresAtMillis(), Bytes.EMPTY,
                Bytes.EMPTY, removed, stamp);
    }

    /**
     * The record's name under its key, what a {@link Store} holds it by ({@link SecretBinding#slotOf}): an owned
     * record's slot; a value's hash for a value without a binding (and a tombstone without a secret, a migrated one of
     * format 1); {@code SHA-256(valueHash ‖ binding)} for a value with one, and for the tombstone whose secret opens
     * that binding. So two puts of the same bytes with different secrets are two records.
     */
    @Override
    public Bytes slot() {
        return slot;
    }

    public boolean isOwned() {
        return stamp != null;
    }

    /** An owned record's sequence (unsigned); 0 for an unowned one. */
    public long seq() {
        return stamp == null ? 0 : stamp.seq();
    }

    /** A live value; its hash is computed here. */
    public static StoredRecord value(Id key, Bytes value, long expiresAtMillis, Bytes binding) {
        return new StoredRecord(key, value.sha256(), value, expiresAtMillis, binding, Bytes.EMPTY, false);
    }

    /** A tombstone carrying the secret of the remove that made it. */
    public static StoredRecord tombstone(Id key, Bytes valueHash, long expiresAtMillis, Bytes secret) {
        return new StoredRecord(key, valueHash, Bytes.EMPTY, expiresAtMillis, Bytes.EMPTY, secret, true);
    }

    public boolean isExpired(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }
}
