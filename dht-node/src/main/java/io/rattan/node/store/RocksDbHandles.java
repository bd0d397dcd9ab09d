package io.rattan.node.store;

import io.rattan.core.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;

/**
 * The native objects of one open {@link RocksDbStore}: the database with its three column families ({@code default},
 * {@code values}, {@code expiry}), their options, the 8 MiB block cache, the SST file manager that enforces the space
 * limit, and the statistics. Opened together (the on-disk format checked and migrated on the way) and released
 * together, in reverse order. Closing must not race a use; the store guarantees that.
 */
final class RocksDbHandles {

    static final String VALUES_CF = "values";
    static final String EXPIRY_CF = "expiry";

    private static final long BLOCK_CACHE_BYTES = 8L << 20;
    private static final long MIN_WRITE_BUFFER_BYTES = 64L << 10;

    static {
        RocksDbNativeLibrary.load();
    }

    private final LRUCache blockCache;
    private final ColumnFamilyOptions cfOptions;
    private final DBOptions dbOptions;
    private final List<ColumnFamilyHandle> handles;
    private final RocksDB db;
    private final SstFileManager sstFiles;
    private final Statistics statistics;

    private RocksDbHandles(LRUCache blockCache, ColumnFamilyOptions cfOptions, DBOptions dbOptions,
                           List<ColumnFamilyHandle> handles, RocksDB db,
                           SstFileManager sstFiles, Statistics statistics) {
        this.blockCache = blockCache;
        this.cfOptions = cfOptions;
        this.dbOptions = dbOptions;
        this.handles = handles;
        this.db = db;
        this.sstFiles = sstFiles;
        this.statistics = statistics;
    }

    /**
     * Opens the database in {@code dir}, creating the directory and the database when missing. Throws
     * {@link StoreException} when it cannot, or when the directory holds a store of an unknown format version.
     */
    static RocksDbHandles open(Path dir, RocksDbStore.Settings settings) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StoreException("cannot create store directory " + dir, e);
        }
        LRUCache cache = new LRUCache(BLOCK_CACHE_BYTES);
        ColumnFamilyOptions cfOptions = columnOptions(cache, settings);
        SstFileManager sstFiles;
        try {
            sstFiles = new SstFileManager(Env.getDefault());
        } catch (RocksDBException e) {
            cfOptions.close();
            cache.close();
            throw new StoreException("cannot create the SST file manager for " + dir, e);
        }
        sstFiles.setMaxAllowedSpaceUsage(settings.maxSpaceBytes());
        Statistics statistics = new Statistics();
        DBOptions dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setSstFileManager(sstFiles)
                .setStatistics(statistics);
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(VALUES_CF.getBytes(StandardCharsets.UTF_8), cfOptions),
                new ColumnFamilyDescriptor(EXPIRY_CF.getBytes(StandardCharsets.UTF_8), cfOptions));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db = null;
        try {
            db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
            StoreFormat.checkAndMigrate(db, handles, dir);
            return new RocksDbHandles(cache, cfOptions, dbOptions, handles, db, sstFiles, statistics);
        } catch (RocksDBException | RuntimeException e) {
            new RocksDbHandles(cache, cfOptions, dbOptions, handles, db, sstFiles, statistics).close();
            if (e instanceof RocksDBException re) {
                throw new StoreException("cannot open store in " + dir, re);
            }
            throw (RuntimeException) e;
        }
    }

    private static ColumnFamilyOptions columnOptions(LRUCache cache, RocksDbStore.Settings settings) {
        ColumnFamilyOptions cfOptions = new ColumnFamilyOptions()
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        if (settings.maxSpaceBytes() > 0) {
            // The limit is checked when a memtable is flushed: a memtable larger than the limit would let writes
            // run far past it unnoticed.
            cfOptions.setWriteBufferSize(Math.max(MIN_WRITE_BUFFER_BYTES,
                    Math.min(cfOptions.writeBufferSize(), settings.maxSpaceBytes() / 4)));
        }
        return cfOptions;
    }

    RocksDB db() {
        return db;
    }

    /** The default column family: the format version, the expiry clock's mark, the probe's key. */
    ColumnFamilyHandle defaults() {
        return handles.get(0);
    }

    ColumnFamilyHandle values() {
        return handles.get(1);
    }

    ColumnFamilyHandle expiry() {
        return handles.get(2);
    }

    /** The most the memtables of every column family can hold before writes stop: what their flushes add to disk. */
    long memtableBytes() {
        return (long) handles.size() * cfOptions.writeBufferSize() * cfOptions.maxWriteBufferNumber();
    }

    SstFileManager sstFiles() {
        return sstFiles;
    }

    Statistics statistics() {
        return statistics;
    }

    /** Releases every native object; {@code db} may be null when opening failed before it existed. */
    void close() {
        handles.forEach(ColumnFamilyHandle::close);
        if (db != null) {
            db.close();
        }
        dbOptions.close();
        statistics.close();
        sstFiles.close();
        cfOptions.close();
        blockCache.close();
    }
}
