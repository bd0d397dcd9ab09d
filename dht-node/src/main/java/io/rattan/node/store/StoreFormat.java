package io.rattan.node.store;

import io.rattan.core.store.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
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

    /** The format this code writes. Version 1: the record layout described in {@link RocksDbStore}. */
    static final int CURRENT = 1;
    static final byte[] KEY = "rattan.format".getBytes(StandardCharsets.UTF_8);

    /** One migration step: upgrades a store of version {@code v} to {@code v + 1}, keyed by {@code v}. */
    interface Migration {
        void apply(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException;
    }

    /** No step yet: version 1 is the first versioned format. */
    static final Map<Integer, Migration> MIGRATIONS = Map.of();

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
            // store is empty. Either way it is version 1 now.
            version = 1;
            if (!isEmpty(db, handles.get(1))) {
                log.info("store in {} has no format marker: a store from before markers, format 1", dir);
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
