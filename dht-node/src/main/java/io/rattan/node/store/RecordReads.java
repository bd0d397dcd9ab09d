package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.Store.Cursor;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * A {@link RocksDbStore}'s reads: one record, or records in key order from a cursor. Expired records are left out
 * and a record that does not decode is skipped (served as missing, so a replica's copy repairs it) and reported to
 * {@link StoreFaults}. Any thread.
 */
final class RecordReads {

    private final RocksDbHandles rocks;
    private final LongSupplier clock;
    private final StoreFaults faults;

    RecordReads(RocksDbHandles rocks, LongSupplier clock, StoreFaults faults) {
        this.rocks = rocks;
        this.clock = clock;
        this.faults = faults;
    }

    /** The live record under {@code key} in {@code slot} (32 bytes), if any. */
    Optional<StoredRecord> read(Id key, Bytes slot) {
        try {
            byte[] bytes = rocks.db().get(rocks.values(), RecordFormat.dataKey(key, slot));
            if (bytes == null) {
                return Optional.empty();
            }
            StoredRecord r = decodeOrSkip(key, slot, bytes);
            return r == null || r.isExpired(clock.getAsLong()) ? Optional.empty() : Optional.of(r);
        } catch (RocksDBException e) {
            throw faults.failed("read", e);
        }
    }

    /** Up to {@code limit} (at least 1) live records after {@code from}; with {@code keyOnly}, of its key alone. */
    List<StoredRecord> scan(Cursor from, int limit, boolean keyOnly) {
        List<StoredRecord> out = new ArrayList<>(Math.min(limit, 64));
        long nowMillis = clock.getAsLong();
        byte[] seekKey = new byte[Id.BYTES + from.slotExclusive().length()];
        from.key().writeTo(seekKey, 0);
        from.slotExclusive().copyTo(seekKey, Id.BYTES);
        try (RocksIterator it = rocks.db().newIterator(rocks.values())) {
            // Seeking lands on the first key >= id ‖ slot; only an exact match is excluded by the cursor rule.
            for (it.seek(seekKey); it.isValid() && out.size() < limit; it.next()) {
                byte[] k = it.key();
                if (Arrays.equals(k, seekKey)) {
                    continue;
                }
                // A get reads one key's values: stop at the next key rather than decode (and copy out) records
                // the caller would throw away.
                if (keyOnly && (k.length < Id.BYTES || !Arrays.equals(k, 0, Id.BYTES, seekKey, 0, Id.BYTES))) {
                    break;
                }
                if (k.length != RecordFormat.DATA_KEY_BYTES) {
                    faults.skipCorrupt(Bytes.wrap(k), "its key is " + k.length + " bytes");
                    continue;
                }
                StoredRecord r = decodeOrSkip(Id.fromBytes(k, 0), Bytes.of(k, Id.BYTES, StoredRecord.HASH_BYTES),
                        it.value());
                if (r != null && !r.isExpired(nowMillis)) {
                    out.add(r);
                }
            }
            it.status();
        } catch (RocksDBException e) {
            throw faults.failed("scan", e);
        }
        return out;
    }

    /**
     * Decodes a stored record, or skips it (logged once, counted) when its bytes are not one of this slot: null then.
     */
    private StoredRecord decodeOrSkip(Id key, Bytes slot, byte[] bytes) {
        StoredRecord r = RecordFormat.decodeOrNull(key, slot, bytes);
        if (r == null) {
            faults.skipCorrupt(Bytes.wrap(RecordFormat.dataKey(key, slot)),
                    bytes.length + " bytes that do not decode to a record of this slot");
        }
        return r;
    }
}
