package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The on-disk format version of a {@link RocksDbStore}: a 4-byte big-endian number under {@link #KEY} in the default
 * column family, written when the store is created and checked every time it is opened.
 *
 * <p>Migration path: when the format changes, raise {@link #CURRENT} and add to {@link #MIGRATIONS} the step that
 * turns a store of the previous version into the new one (it runs on the open database, before the node serves, and
 * must be safe to rerun if the process dies midway: the version is written only after the step returns). Opening runs
 * every step from the store's version up to {@link #CURRENT} in order. A store written by a newer Rattan (a version
 * above {@link #CURRENT}) is refused with a clear error rather than misread.
 */
final class StoreFormat {

    /**
     * The format this code writes: version 4, records named by {@code (key, slot)} in the layout described in
     * {@link RecordFormat}. Version 3 named every record by its value hash, so a value with a binding and a tombstone
     * with a secret move to their slot ({@link #fromVersion3}). Version 2 had no owned records (flag bit 1), so each
     * of its records is one of version 3 ({@link #fromVersion2}). Version 1 held a secret hash, SHA-256 of the secret
     * alone, with values and tombstones alike (see {@link #fromVersion1}).
     */
    static final int CURRENT = 4;
    static final byte[] KEY = "rattan.format".getBytes(StandardCharsets.UTF_8);

    /** One migration step: upgrades a store of version {@code v} to {@code v + 1}, keyed by {@code v}. */
    interface Migration {
        void apply(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException;
    }

    static final Map<Integer, Migration> MIGRATIONS = Map.of(1, StoreFormat::fromVersion1, 2,
            StoreFormat::fromVersion2, 3, StoreFormat::fromVersion3);
    /** Records rewritten per write batch by a migration, so a large store migrates in bounded memory. */
    private static final int MIGRATION_BATCH_RECORDS = 1024;

    private static final Logger log = LoggerFactory.getLogger(StoreFormat.class);

    private StoreFormat() {
    }

    /**
     * Checks the store's version, writing {@link #CURRENT} into a new store and migrating an older one; throws
     * {@link StoreException} for a version this code cannot read.
     */
    static void checkAndMigrate(RocksDB db, List<ColumnFamilyHandle> handles, Path dir) throws RocksDBException {
        byte[] stored = db.get(KEY);
        int version;
        if (stored == null) {
            // Stores made before the marker existed hold records of format 1 (their first byte says so); a new
            // store is empty, and of the current format.
            version = CURRENT;
            if (!isEmpty(db, handles.get(1))) {
                log.info("store in {} has no format marker: a store from before markers, format 1", dir);
                version = 1;
            }
            write(db, version);
        } else if (stored.length != Integer.BYTES) {
            throw new StoreException("the store in " + dir + " has a format marker of " + stored.length
                    + " bytes (expected 4): it was not written by Rattan, or is damaged", null);
        } else {
            version = ByteBuffer.wrap(stored).getInt();
        }
        if (version > CURRENT || version < 1) {
            throw new StoreException("the store in " + dir + " has on-disk format version " + version
                    + ", which this Rattan cannot read (it reads versions 1 to " + CURRENT + "): run the Rattan "
                    + "release that wrote it, or start this node on a fresh --data-dir", null);
        }
        while (version < CURRENT) {
            Migration step = MIGRATIONS.get(version);
            if (step == null) {
                throw new StoreException("no migration from store format version " + version + " in " + dir, null);
            }
            log.info("migrating the store in {} from format version {} to {}", dir, version, version + 1);
            step.apply(db, handles);
            version++;
            write(db, version);
        }
    }

    /**
     * Version 1 → 2: every record is rewritten in the layout of version 2, with no binding and no secret. A value of
     * version 1 held SHA-256 of its secret, from which no binding to the value can be made (the secret was never
     * stored), so it can no longer be removed: it lives out its TTL (at most {@code ttlSecondsMax}, 7 days by
     * default). A tombstone of version 1 held the same hash and no secret: it becomes a tombstone without a secret,
     * which keeps values without a binding out of this store (the removed value among them) until it expires; every
     * other node refuses it (nothing in it can be checked), so it stays on the node that held it. Expiry times are
     * unchanged, and so is the expiry index. A record that does not decode as version 1 is left as it is (the store
     * skips and counts it, as any corrupt record), and one already of version 2 too, so the step is safe to rerun.
     */
    static void fromVersion1(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException {
        ColumnFamilyHandle values = handles.get(1);
        long rewritten = 0;
        try (RocksIterator it = db.newIterator(values);
             WriteOptions options = new WriteOptions()) {
            WriteBatch batch = new WriteBatch();
            try {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    byte[] migrated = recordFromVersion1(it.value());
                    if (migrated == null) {
                        continue;
                    }
                    batch.put(values, it.key(), migrated);
                    rewritten++;
                    if (batch.count() >= MIGRATION_BATCH_RECORDS) {
                        db.write(options, batch);
                        batch.close();
                        batch = new WriteBatch();
                    }
                }
                it.status();
                db.write(options, batch);
            } finally {
                batch.close();
            }
        }
        log.info("store format 1 → 2: {} records rewritten; values put with a secret before the upgrade can no "
                + "longer be removed and expire at their TTL", rewritten);
    }

    /**
     * Version 2 → 3: nothing to rewrite. Version 3 added owned records, marked by flag bit 1, which no record of
     * version 2 sets; only the marker changes, so that a Rattan that cannot read owned records refuses the store.
     */
    static void fromVersion2(RocksDB db, List<ColumnFamilyHandle> handles) {
        log.info("store format 2 → 3: records unchanged (format 3 adds owned records)");
    }

    /**
     * Version 3 → 4: a record whose slot is not its value hash (a value with a binding, a tombstone with a secret)
     * moves from {@code id ‖ valueHash} to {@code id ‖ slot}, rewritten in encoding version 3 (which holds the value
     * hash), its expiry index entry with it; each record's delete and put go in one batch. Every other record is
     * already one of format 4 and stays. A moved record is no longer of version 2, so the step is safe to rerun; a
     * record that does not decode stays, skipped and counted as corrupt as before.
     */
    static void fromVersion3(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException {
        ColumnFamilyHandle values = handles.get(1);
        ColumnFamilyHandle expiry = handles.get(2);
        long moved = 0;
        // The iterator reads a snapshot taken when it was made, so it never meets a record this step has moved.
        try (RocksIterator it = db.newIterator(values);
             WriteOptions options = new WriteOptions();
             WriteBatch batch = new WriteBatch()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] oldKey = it.key();
                StoredRecord r = recordOfVersion2(oldKey, it.value());
                Bytes slot = r == null ? null : r.slot();
                if (slot == null || slot.equals(r.valueHash())) {
                    continue;
                }
                byte[] newKey = RecordFormat.dataKey(r.key(), slot);
                batch.delete(values, oldKey);
                batch.delete(expiry, RecordFormat.expiryKey(r.expiresAtMillis(), oldKey));
                batch.put(values, newKey, RecordFormat.encode(r, slot));
                batch.put(expiry, RecordFormat.expiryKey(r.expiresAtMillis(), newKey), RecordFormat.EMPTY);
                if (++moved % MIGRATION_BATCH_RECORDS == 0) {
                    db.write(options, batch);
                    batch.clear();
                }
            }
            it.status();
            db.write(options, batch);
        }
        log.info("store format 3 → 4: {} records (values with a binding, tombstones with a secret) moved to their "
                + "slot", moved);
    }

    /** The record of encoding version 2 a store of format 3 holds under {@code dataKey}, or null if it is not one. */
    private static StoredRecord recordOfVersion2(byte[] dataKey, byte[] bytes) {
        if (dataKey.length != RecordFormat.DATA_KEY_BYTES) {
            return null;
        }
        return RecordFormat.decodeVersion2OrNull(Id.fromBytes(dataKey, 0),
                Bytes.of(dataKey, Id.BYTES, StoredRecord.HASH_BYTES), bytes);
    }

    /** One record of version 1 in the layout of version 2 (without binding or secret); null if it is not one. */
    static byte[] recordFromVersion1(byte[] v1) {
        int header = 1 + 1 + Long.BYTES + 1;
        if (v1.length < header || v1[0] != 1) {
            return null;
        }
        int hashLength = v1[header - 1] & 0xFF;
        if ((hashLength != 0 && hashLength != 32) || v1.length < header + hashLength) {
            return null;
        }
        int valueLength = v1.length - header - hashLength;
        ByteBuffer v2 = ByteBuffer.allocate(header + 2 + valueLength);
        v2.put((byte) 2).put(v1, 1, 1 + Long.BYTES).put((byte) 0).putShort((short) 0);
        v2.put(v1, header + hashLength, valueLength);
        return v2.array();
    }

    static void write(RocksDB db, int version) throws RocksDBException {
        try (WriteOptions sync = new WriteOptions().setSync(true)) {
            db.put(sync, KEY, ByteBuffer.allocate(Integer.BYTES).putInt(version).array());
        }
    }

    private static boolean isEmpty(RocksDB db, ColumnFamilyHandle cf) {
        try (RocksIterator it = db.newIterator(cf)) {
            it.seekToFirst();
            return !it.isValid();
        }
    }
}
