package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.core.store.StoredRecord;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of a {@link RocksDbStore}'s records and index entries. {@code values} maps
 * {@code id (20 bytes) ‖ valueHash (32 bytes)} to the encoded record: a version byte (2), a flags byte (bit 0:
 * tombstone; bit 1: owned), expiresAtMillis (8 bytes, big-endian), a value's binding as a length byte (0 or 32) and
 * its bytes, a tombstone's secret as a 2-byte big-endian length (0..1,024) and its bytes, an owned record's stamp
 * (owner 32 bytes, value id, sequence and expiry in seconds 8 bytes each, signature 64 bytes; store format 3), then
 * the value bytes ({@link StoreFormat} migrates stores of formats 1 and 2). {@code expiry} maps {@code expiresAtMillis ‖ id ‖ valueHash} to nothing; the time
 * is big-endian with its sign bit flipped so that byte order is numeric order for any long. Stateless and thread-safe.
 */
final class RecordFormat {

    static final int DATA_KEY_BYTES = Id.BYTES + StoredRecord.HASH_BYTES;
    static final int EXPIRY_KEY_BYTES = Long.BYTES + DATA_KEY_BYTES;
    static final byte[] EMPTY = new byte[0];

    private static final byte FORMAT_VERSION = 2;
    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_OWNED = 2;
    private static final int STAMP_BYTES = OwnerStamp.OWNER_BYTES + 3 * Long.BYTES + OwnerStamp.SIGNATURE_BYTES;
    /** version, flags, expiresAtMillis, binding length. */
    private static final int HEADER_BYTES = 1 + 1 + Long.BYTES + 1;
    /** A tombstone's secret length: 2 bytes, big-endian. */
    private static final int SECRET_LENGTH_BYTES = 2;

    private RecordFormat() {
    }

    static byte[] dataKey(Id key, Bytes valueHash) {
        byte[] k = new byte[DATA_KEY_BYTES];
        key.writeTo(k, 0);
        valueHash.copyTo(k, Id.BYTES);
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

    static byte[] encode(StoredRecord r) {
        OwnerStamp s = r.stamp();
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + r.binding().length() + SECRET_LENGTH_BYTES
                + r.secret().length() + (s == null ? 0 : STAMP_BYTES) + r.value().length());
        b.put(FORMAT_VERSION)
                .put((byte) ((r.tombstone() ? FLAG_TOMBSTONE : 0) | (s == null ? 0 : FLAG_OWNED)))
                .putLong(r.expiresAtMillis())
                .put((byte) r.binding().length());
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

    /** The record {@code bytes} encode under {@code key} and {@code valueHash}, or null when they do not decode. */
    static StoredRecord decodeOrNull(Id key, Bytes valueHash, byte[] bytes) {
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_VERSION
                || (bytes[1] & ~(FLAG_TOMBSTONE | FLAG_OWNED)) != 0) {
            return null;
        }
        boolean tombstone = (bytes[1] & FLAG_TOMBSTONE) != 0;
        boolean owned = (bytes[1] & FLAG_OWNED) != 0;
        long expiresAtMillis = ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong();
        int bindingLength = bytes[HEADER_BYTES - 1] & 0xFF;
        int secretAt = HEADER_BYTES + bindingLength + SECRET_LENGTH_BYTES;
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
        return new StoredRecord(key, valueHash, Bytes.of(bytes, valueOffset, bytes.length - valueOffset),
                expiresAtMillis, Bytes.of(bytes, HEADER_BYTES, bindingLength), Bytes.of(bytes, secretAt, secretLength),
                tombstone, stamp);
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
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_VERSION) {
            return true;
        }
        return ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong() == expiresAtMillis;
    }
}
