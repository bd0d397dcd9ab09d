package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.core.store.StoredRecord;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of a {@link RocksDbStore}'s records and index entries. {@code values} maps
 * {@code id (20 bytes) ‖ slot (32 bytes)} ({@link StoredRecord#slot}) to the encoded record: a version byte (3), a
 * flags byte (bit 0: tombstone; bit 1: owned; bit 2: named by slot), expiresAtMillis (8 bytes, big-endian), a value's
 * binding length byte (0 or 32), the value hash (32 bytes) when named by slot, the binding's bytes, a tombstone's
 * secret as a 2-byte big-endian length (0..1,024) and its bytes, an owned record's stamp (owner 32 bytes, value id,
 * sequence and expiry in seconds 8 bytes each, signature 64 bytes), then the value bytes. Only a record whose slot is
 * not its value hash (a value with a binding, a tombstone with a secret) is named by slot and carries its hash; any
 * other takes its hash from the key, as in version 2, which is read too: a record of version 2 whose slot is its hash
 * is one of version 3 ({@link StoreFormat} moved the others). A record that its key's slot cannot name does not decode:
 * one named by slot under its bare hash, or one named by its hash under any other slot. Whether a record named by slot
 * is under the very slot its binding makes is not checked on reads (a hash per record of every page): only
 * {@link #encode} writes these bytes, with the record's own slot, and RocksDB's block checksums catch a flipped bit.
 * {@code expiry} maps {@code expiresAtMillis ‖ id ‖ slot} to nothing; the time is big-endian with its sign bit
 * flipped so that byte order is numeric order for any long. Stateless and thread-safe.
 */
final class RecordFormat {

    static final int DATA_KEY_BYTES = Id.BYTES + StoredRecord.HASH_BYTES;
    static final int EXPIRY_KEY_BYTES = Long.BYTES + DATA_KEY_BYTES;
    static final byte[] EMPTY = new byte[0];

    private static final byte FORMAT_VERSION = 3;
    /** The encoding of store format 3, which named every record by its value hash. */
    private static final byte FORMAT_VERSION_2 = 2;
    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_OWNED = 2;
    private static final int FLAG_NAMED_BY_SLOT = 4;
    private static final int STAMP_BYTES = OwnerStamp.OWNER_BYTES + 3 * Long.BYTES + OwnerStamp.SIGNATURE_BYTES;
    /** version, flags, expiresAtMillis, binding length. */
    private static final int HEADER_BYTES = 1 + 1 + Long.BYTES + 1;
    /** A tombstone's secret length: 2 bytes, big-endian. */
    private static final int SECRET_LENGTH_BYTES = 2;

    private RecordFormat() {
    }

    static byte[] dataKey(Id key, Bytes slot) {
        byte[] k = new byte[DATA_KEY_BYTES];
        key.writeTo(k, 0);
        slot.copyTo(k, Id.BYTES);
        return k;
    }

    static byte[] expiryKey(long expiresAtMillis, byte[] dataKey) {
        return ByteBuffer.allocate(EXPIRY_KEY_BYTES)
                .putLong(expiresAtMillis ^ Long.MIN_VALUE)
                .put(dataKey)
                .array();
    }

    /** The expiry time an index entry's key holds. */
    static long expiresAtMillis(byte[] expiryKey) {
        return ByteBuffer.wrap(expiryKey).getLong() ^ Long.MIN_VALUE;
    }

    /** The key of the record an index entry points at. */
    static byte[] dataKeyOf(byte[] expiryKey) {
        return Arrays.copyOfRange(expiryKey, Long.BYTES, expiryKey.length);
    }

    /** The bytes of {@code r}, whose {@link StoredRecord#slot} the caller has computed (two hashes for a tombstone). */
    static byte[] encode(StoredRecord r, Bytes slot) {
        OwnerStamp s = r.stamp();
        boolean namedBySlot = !slot.equals(r.valueHash());
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + (namedBySlot ? StoredRecord.HASH_BYTES : 0)
                + r.binding().length() + SECRET_LENGTH_BYTES + r.secret().length() + (s == null ? 0 : STAMP_BYTES)
                + r.value().length());
        b.put(FORMAT_VERSION)
                .put((byte) ((r.tombstone() ? FLAG_TOMBSTONE : 0) | (s == null ? 0 : FLAG_OWNED)
                        | (namedBySlot ? FLAG_NAMED_BY_SLOT : 0)))
                .putLong(r.expiresAtMillis())
                .put((byte) r.binding().length());
        if (namedBySlot) {
            b.put(r.valueHash().toByteArray());
        }
        b.put(r.binding().toByteArray());
        b.putShort((short) r.secret().length());
        b.put(r.secret().toByteArray());
        if (s != null) {
            b.put(s.owner().toByteArray()).putLong(s.valueId()).putLong(s.seq()).putLong(s.expiresAtSeconds());
            b.put(s.signature().toByteArray());
        }
        b.put(r.value().toByteArray());
        return b.array();
    }

    /**
     * The record {@code bytes} encode under {@code key} in {@code slot} (its data key's last 32 bytes), or null when
     * they do not decode, or decode to a record that {@code slot} cannot name (the record keeps {@code slot}).
     */
    static StoredRecord decodeOrNull(Id key, Bytes slot, byte[] bytes) {
        return decodeFields(key, slot, bytes, slot);
    }

    /**
     * The record {@code bytes} encode in version 2, held by a store of format 3 under {@code key} and
     * {@code valueHash}; null when they are not one. For the migration to format 4, which moves it to its slot.
     */
    static StoredRecord decodeVersion2OrNull(Id key, Bytes valueHash, byte[] bytes) {
        return bytes.length > 0 && bytes[0] == FORMAT_VERSION_2 ? decodeFields(key, valueHash, bytes, null) : null;
    }

    /**
     * A record of version 2 or 3 under {@code key}, its hash {@code keyHash} unless it is named by slot, in
     * {@code slot} (null: computed); or null.
     */
    private static StoredRecord decodeFields(Id key, Bytes keyHash, byte[] bytes, Bytes slot) {
        if (bytes.length < HEADER_BYTES || (bytes[0] != FORMAT_VERSION && bytes[0] != FORMAT_VERSION_2)) {
            return null;
        }
        int flagsKnown = FLAG_TOMBSTONE | FLAG_OWNED | (bytes[0] == FORMAT_VERSION ? FLAG_NAMED_BY_SLOT : 0);
        if ((bytes[1] & ~flagsKnown) != 0) {
            return null;
        }
        boolean tombstone = (bytes[1] & FLAG_TOMBSTONE) != 0;
        boolean owned = (bytes[1] & FLAG_OWNED) != 0;
        long expiresAtMillis = ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong();
        int bindingLength = bytes[HEADER_BYTES - 1] & 0xFF;
        int bindingAt = HEADER_BYTES + ((bytes[1] & FLAG_NAMED_BY_SLOT) != 0 ? StoredRecord.HASH_BYTES : 0);
        int secretAt = bindingAt + bindingLength + SECRET_LENGTH_BYTES;
        if ((bindingLength != 0 && bindingLength != StoredRecord.HASH_BYTES) || bytes.length < secretAt) {
            return null;
        }
        int secretLength = ByteBuffer.wrap(bytes, secretAt - SECRET_LENGTH_BYTES, SECRET_LENGTH_BYTES).getShort()
                & 0xFFFF;
        int stampAt = secretAt + secretLength;
        int valueOffset = stampAt + (owned ? STAMP_BYTES : 0);
        if (secretLength > StoredRecord.SECRET_BYTES_MAX || bytes.length < valueOffset) {
            return null;
        }
        OwnerStamp stamp = owned ? stamp(bytes, stampAt) : null;
        if (owned && (stamp == null || bindingLength != 0 || secretLength != 0)) {
            return null;
        }
        // A value never holds a secret, a tombstone never a value or a binding.
        if (tombstone ? bytes.length != valueOffset || bindingLength != 0 : secretLength != 0) {
            return null;
        }
        Bytes valueHash = bindingAt == HEADER_BYTES ? keyHash : Bytes.of(bytes, HEADER_BYTES, StoredRecord.HASH_BYTES);
        try {
            return new StoredRecord(key, valueHash, Bytes.of(bytes, valueOffset, bytes.length - valueOffset),
                    expiresAtMillis, Bytes.of(bytes, bindingAt, bindingLength), Bytes.of(bytes, secretAt, secretLength),
                    tombstone, stamp, slot);
        } catch (IllegalArgumentException e) {
            // Named by slot under its bare hash, or by its hash under another slot: not a record of this slot.
            return null;
        }
    }

    private static OwnerStamp stamp(byte[] bytes, int at) {
        ByteBuffer b = ByteBuffer.wrap(bytes, at + OwnerStamp.OWNER_BYTES, 3 * Long.BYTES);
        long valueId = b.getLong();
        long seq = b.getLong();
        long expiresAtSeconds = b.getLong();
        if (expiresAtSeconds < 0 || expiresAtSeconds > OwnerStamp.EXPIRES_AT_SECONDS_MAX) {
            return null;
        }
        return new OwnerStamp(Bytes.of(bytes, at, OwnerStamp.OWNER_BYTES), valueId, seq, expiresAtSeconds,
                Bytes.of(bytes, at + OwnerStamp.OWNER_BYTES + 3 * Long.BYTES, OwnerStamp.SIGNATURE_BYTES));
    }

    /** True when the encoded record expires at {@code expiresAtMillis}, or cannot be read at all. */
    static boolean storedExpiryMatches(byte[] bytes, long expiresAtMillis) {
        if (bytes.length < HEADER_BYTES || (bytes[0] != FORMAT_VERSION && bytes[0] != FORMAT_VERSION_2)) {
            return true;
        }
        return ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong() == expiresAtMillis;
    }
}
