package io.rattan.node.store;

import io.rattan.core.id.Id;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Store} on RocksDB, so a restarted node serves its values from its own disk.
 *
 * <p>Two column families. {@code values} maps {@code id (20 bytes) ‖ valueHash (32 bytes)} to the encoded record:
 * a version byte (2), a flags byte (bit 0: tombstone), expiresAtMillis (8 bytes, big-endian), a value's binding as a
 * length byte (0 or 32) and its bytes, a tombstone's secret as a 2-byte big-endian length (0..1,024) and its bytes,
 * then the value bytes ({@link StoreFormat} migrates records of version 1). {@code expiry} maps
 * {@code expiresAtMillis ‖ id ‖ valueHash} to nothing; the time is big-endian with its sign bit flipped so that
 * byte order is numeric order for any long. Every change to a record and its index entry goes in one
 * {@link WriteBatch}, so the two never disagree after a crash.
 * Writes go to the write-ahead log without fsync: they survive a killed process, not a lost machine. With
 * {@link Settings#fsync}, {@link #whenDurable} runs its action only after a WAL sync that began after the write has
 * returned; one sync thread serves every waiter queued while the previous sync ran (group commit).
 *
 * <p>The default column family holds the on-disk format version ({@link StoreFormat}), written at create and checked
 * at open. Failures are typed ({@link StoreException.Kind}): a full disk or the {@link Settings#maxSpaceBytes} limit
 * (enforced by RocksDB's {@link SstFileManager}) is {@code FULL}, anything else {@code IO}; the store then reports
 * itself unhealthy until a write, or a {@link #probe}, succeeds again (RocksDB recovers by itself once space returns).
 * A record that cannot be decoded is skipped by reads and scans, logged once and counted, so replicas repair it.
 *
 * <p>Called from two threads: the node's event loop (point reads, a get's page, the counters, the probe) and the
 * store thread of {@link OffLoopStore} (every record write, scans, purges); RocksDB takes concurrent calls and the
 * counters here are atomic. Record writes (and purges) must come from one thread at a time, since a write reads what
 * it replaces before it writes. The sync thread touches only the WAL sync. {@link #close} must not race another call
 * (close the {@link OffLoopStore} first); any call after close throws {@link IllegalStateException} rather than
 * touching freed native memory.
 */
public final class RocksDbStore implements Store, AutoCloseable {

    static final String VALUES_CF = "values";
    static final String EXPIRY_CF = "expiry";
    static final int DATA_KEY_BYTES = Id.BYTES + StoredRecord.HASH_BYTES;
    static final int EXPIRY_KEY_BYTES = Long.BYTES + DATA_KEY_BYTES;

    private static final Logger log = LoggerFactory.getLogger(RocksDbStore.class);
    private static final byte FORMAT_VERSION = 2;
    /** The probe write's key in the default column family; its value is overwritten each time. */
    private static final byte[] PROBE_KEY = "rattan.probe".getBytes(StandardCharsets.UTF_8);
    /** Corrupt records logged individually at most; beyond this they are only counted. */
    private static final int CORRUPT_LOGGED_MAX = 1000;
    private static final int FLAG_TOMBSTONE = 1;
    /** version, flags, expiresAtMillis, binding length. */
    private static final int HEADER_BYTES = 1 + 1 + Long.BYTES + 1;
    /** A tombstone's secret length: 2 bytes, big-endian. */
    private static final int SECRET_LENGTH_BYTES = 2;
    private static final long BLOCK_CACHE_BYTES = 8L << 20;
    private static final long MIN_WRITE_BUFFER_BYTES = 64L << 10;
    /** Purging writes its deletions in batches of this many records, so a large purge holds bounded memory. */
    private static final int PURGE_BATCH_RECORDS = 1024;
    private static final byte[] EMPTY = new byte[0];

    static {
        RocksDB.loadLibrary();
    }

    /** The expiry clock's high-water mark, in the default column family (the records live in their own). */
    private static final byte[] CLOCK_MARK_KEY = "expiry-clock-mark".getBytes(StandardCharsets.UTF_8);
    private final LongSupplier clock;
    private final LRUCache blockCache;
    private final ColumnFamilyOptions cfOptions;
    private final DBOptions dbOptions;
    private final WriteOptions writeOptions;
    private final List<ColumnFamilyHandle> handles;
    private final ColumnFamilyHandle values;
    private final ColumnFamilyHandle expiry;
    private final RocksDB db;
    private final SstFileManager sstFiles;
    private final Statistics statistics;
    private final WalSyncer syncer;
    private final AtomicLong faultsFull = new AtomicLong();
    private final AtomicLong faultsIo = new AtomicLong();
    private final AtomicLong corruptRecords = new AtomicLong();
    private final Set<Bytes> corruptSeen = ConcurrentHashMap.newKeySet();
    private volatile StoreException.Kind fault;
    private final AtomicLong count = new AtomicLong();
    // Volatile: metrics read the counters from other threads and must not touch native memory after close.
    private volatile boolean closed;

    /**
     * How the store is run.
     *
     * @param fsync         acknowledge writes only after the write-ahead log is synced to disk (group commit)
     * @param maxSpaceBytes RocksDB's space limit for SST files ({@link SstFileManager}); 0 for none
     */
    public record Settings(boolean fsync, long maxSpaceBytes) {
        public static final Settings DEFAULT = new Settings(false, 0);

        public Settings {
            if (maxSpaceBytes < 0) {
                throw new IllegalArgumentException("maxSpaceBytes must be >= 0");
            }
        }
    }

    private RocksDbStore(LongSupplier clock, LRUCache blockCache, ColumnFamilyOptions cfOptions, DBOptions dbOptions,
                         WriteOptions writeOptions, List<ColumnFamilyHandle> handles, RocksDB db,
                         SstFileManager sstFiles, Statistics statistics, Settings settings, Executor loop) {
        this.sstFiles = sstFiles;
        this.statistics = statistics;
        this.syncer = settings.fsync() ? new WalSyncer(db, loop, this::syncFailed) : null;
        this.clock = clock;
        this.blockCache = blockCache;
        this.cfOptions = cfOptions;
        this.dbOptions = dbOptions;
        this.writeOptions = writeOptions;
        this.handles = handles;
        this.values = handles.get(1);
        this.expiry = handles.get(2);
        this.db = db;
    }

    /**
     * Opens the store in {@code dir}, creating the directory and the database when missing; {@code clock} gives the
     * time in epoch milliseconds.
     */
    public static RocksDbStore open(Path dir, LongSupplier clock) {
        return open(dir, clock, Settings.DEFAULT, Runnable::run);
    }

    /**
     * Opens the store in {@code dir} as {@code settings} say; with fsync, durable actions ({@link #whenDurable}) are
     * handed back to the node's loop through {@code loop}. Throws {@link StoreException} when the directory holds a
     * store of an unknown format version.
     */
    public static RocksDbStore open(Path dir, LongSupplier clock, Settings settings, Executor loop) {
        if (dir == null || clock == null || settings == null || loop == null) {
            throw new IllegalArgumentException("dir and clock are required");
        }
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
        WriteOptions writeOptions = new WriteOptions();
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(VALUES_CF.getBytes(StandardCharsets.UTF_8), cfOptions),
                new ColumnFamilyDescriptor(EXPIRY_CF.getBytes(StandardCharsets.UTF_8), cfOptions));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db = null;
        try {
            db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
            StoreFormat.checkAndMigrate(db, handles, dir);
            RocksDbStore store = new RocksDbStore(clock, cache, cfOptions, dbOptions, writeOptions, handles, db,
                    sstFiles, statistics, settings, loop);
            store.count.set(store.countRecords());
            return store;
        } catch (RocksDBException | RuntimeException e) {
            handles.forEach(ColumnFamilyHandle::close);
            if (db != null) {
                db.close();
            }
            writeOptions.close();
            dbOptions.close();
            statistics.close();
            sstFiles.close();
            cfOptions.close();
            cache.close();
            if (e instanceof RocksDBException re) {
                throw new StoreException("cannot open store in " + dir, re);
            }
            throw (RuntimeException) e;
        }
    }

    private static ColumnFamilyOptions columnOptions(LRUCache cache, Settings settings) {
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

    @Override
    public long clockMark() {
        ensureOpen();
        try {
            byte[] bytes = db.get(handles.get(0), CLOCK_MARK_KEY);
            return bytes == null || bytes.length != Long.BYTES ? 0 : java.nio.ByteBuffer.wrap(bytes).getLong();
        } catch (RocksDBException e) {
            throw new StoreException("clock mark read failed", e);
        }
    }

    @Override
    public void clockMark(long epochMillis) {
        ensureOpen();
        try {
            db.put(handles.get(0), writeOptions, CLOCK_MARK_KEY,
                    java.nio.ByteBuffer.allocate(Long.BYTES).putLong(epochMillis).array());
        } catch (RocksDBException e) {
            throw new StoreException("clock mark write failed", e);
        }
    }

    @Override
    public void write(StoredRecord record) {
        ensureOpen();
        byte[] dataKey = dataKey(record.key(), record.valueHash());
        try {
            byte[] oldBytes = db.get(values, dataKey);
            // An undecodable old record is overwritten, which is how a corrupt entry gets repaired; if it had an
            // index entry, purgeExpired drops that when its time comes.
            StoredRecord old = oldBytes == null ? null : decodeOrNull(record.key(), record.valueHash(), oldBytes);
            try (WriteBatch batch = new WriteBatch()) {
                if (old != null) {
                    batch.delete(expiry, expiryKey(old.expiresAtMillis(), dataKey));
                }
                batch.put(values, dataKey, encode(record));
                batch.put(expiry, expiryKey(record.expiresAtMillis(), dataKey), EMPTY);
                db.write(writeOptions, batch);
            }
            if (oldBytes == null) {
                count.incrementAndGet();
            }
            if (corruptSeen.remove(Bytes.wrap(dataKey))) {
                log.info("store: corrupt record {} {} was overwritten by a good copy", record.key().shortHex(),
                        record.valueHash());
            }
            healed();
        } catch (RocksDBException e) {
            throw failed("write", e);
        }
    }

    @Override
    public void whenDurable(Runnable action) {
        ensureOpen();
        if (syncer == null) {
            action.run();
        } else {
            syncer.add(action);
        }
    }

    @Override
    public boolean healthy() {
        return fault == null;
    }

    /** The storage fault the store is in, or null when healthy; readable from any thread. */
    public StoreException.Kind fault() {
        return fault;
    }

    /**
     * While in a fault, tries a small write to see whether the store has recovered (space returned, RocksDB cleared
     * its background error); true when healthy afterwards. Cheap when healthy: it then does nothing.
     */
    public boolean probe() {
        ensureOpen();
        if (fault == null) {
            return true;
        }
        try {
            db.put(writeOptions, PROBE_KEY, Long.toString(clock.getAsLong()).getBytes(StandardCharsets.UTF_8));
            healed();
            return true;
        } catch (RocksDBException e) {
            log.debug("store: still faulted: {}", e.getMessage());
            return false;
        }
    }

    /** Sets RocksDB's SST space limit (0: none), as an operator freeing or granting space would. */
    public void setMaxSpaceBytes(long bytes) {
        ensureOpen();
        sstFiles.setMaxAllowedSpaceUsage(bytes);
    }

    /** Writes refused because storage was full, since open. */
    public long fullFaults() {
        return faultsFull.get();
    }

    /** Reads or writes that failed with an I/O error, since open. */
    public long ioFaults() {
        return faultsIo.get();
    }

    /** Distinct undecodable records met (and skipped) since open. */
    public long corruptRecords() {
        return corruptRecords.get();
    }

    /** RocksDB's count of WAL file syncs since open (ticker {@code WAL_FILE_SYNCED}). */
    public long walSyncs() {
        return closed ? 0 : statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
    }

    /** WAL syncs the group-commit thread has completed (0 without fsync); readable from any thread. */
    public long syncsCompleted() {
        return syncer == null ? 0 : syncer.completed();
    }

    private void healed() {
        if (fault != null) {
            log.info("store: recovered from a {} fault; writes succeed again", fault);
            fault = null;
        }
    }

    private void syncFailed(RocksDBException e) {
        fault = StoreException.Kind.IO;
        faultsIo.incrementAndGet();
        log.error("store: WAL sync failed, acknowledgements wait for a sync that succeeds: {}", e.getMessage());
    }

    private StoreException failed(String what, RocksDBException e) {
        StoreException.Kind kind = kindOf(e);
        (kind == StoreException.Kind.FULL ? faultsFull : faultsIo).incrementAndGet();
        if (fault == null) {
            log.error("store: {} failed ({}); the node reports not ready until it recovers: {}", what, kind,
                    e.getMessage());
        }
        fault = kind;
        return new StoreException(kind, what + " failed: " + e.getMessage(), e);
    }

    /** FULL for ENOSPC and RocksDB's space limit (which its Java status shows only by message), else IO. */
    static StoreException.Kind kindOf(RocksDBException e) {
        Status st = e.getStatus();
        boolean full = st != null && st.getSubCode() == Status.SubCode.NoSpace;
        String msg = e.getMessage() == null ? "" : e.getMessage().toLowerCase(java.util.Locale.ROOT);
        return full || msg.contains("space") ? StoreException.Kind.FULL : StoreException.Kind.IO;
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes valueHash) {
        ensureOpen();
        if (valueHash.length() != StoredRecord.HASH_BYTES) {
            return Optional.empty();
        }
        try {
            byte[] bytes = db.get(values, dataKey(key, valueHash));
            if (bytes == null) {
                return Optional.empty();
            }
            StoredRecord r = decodeOrSkip(key, valueHash, bytes);
            return r == null || r.isExpired(clock.getAsLong()) ? Optional.empty() : Optional.of(r);
        } catch (RocksDBException e) {
            throw failed("read", e);
        }
    }

    @Override
    public List<StoredRecord> scan(Cursor from, int limit) {
        return scan(from, limit, false);
    }

    @Override
    public List<StoredRecord> scanKey(Cursor from, int limit) {
        return scan(from, limit, true);
    }

    private List<StoredRecord> scan(Cursor from, int limit, boolean keyOnly) {
        ensureOpen();
        Store.checkLimit(limit);
        List<StoredRecord> out = new ArrayList<>(Math.min(limit, 64));
        if (limit == 0) {
            return out;
        }
        long nowMillis = clock.getAsLong();
        byte[] seekKey = new byte[Id.BYTES + from.valueHashExclusive().length()];
        from.key().writeTo(seekKey, 0);
        from.valueHashExclusive().copyTo(seekKey, Id.BYTES);
        try (RocksIterator it = db.newIterator(values)) {
            // Seeking lands on the first key >= id ‖ hash; only an exact match is excluded by the cursor rule.
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
                if (k.length != DATA_KEY_BYTES) {
                    skipCorrupt(Bytes.wrap(k), "its key is " + k.length + " bytes");
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
            throw failed("scan", e);
        }
        return out;
    }

    @Override
    public int purgeExpired(int limit) {
        ensureOpen();
        Store.checkLimit(limit);
        long nowMillis = clock.getAsLong();
        int purged = 0;
        int examined = 0;
        int pending = 0;
        WriteBatch batch = new WriteBatch();
        try (RocksIterator it = db.newIterator(expiry)) {
            for (it.seekToFirst(); it.isValid() && examined < limit; it.next()) {
                byte[] indexKey = it.key();
                long expiresAtMillis = ByteBuffer.wrap(indexKey).getLong() ^ Long.MIN_VALUE;
                if (expiresAtMillis > nowMillis) {
                    break;
                }
                examined++;
                batch.delete(expiry, indexKey);
                // Data and index change together, so the record should be there with this expiry. Checking keeps
                // the count exact if an entry was ever damaged: a stray index entry goes, the record stays.
                byte[] dataKey = Arrays.copyOfRange(indexKey, Long.BYTES, indexKey.length);
                byte[] bytes = db.get(values, dataKey);
                if (bytes != null && storedExpiryMatches(bytes, expiresAtMillis)) {
                    batch.delete(values, dataKey);
                    pending++;
                }
                if (batch.count() >= 2 * PURGE_BATCH_RECORDS) {
                    db.write(writeOptions, batch);
                    count.addAndGet(-pending);
                    purged += pending;
                    pending = 0;
                    batch.clear();
                }
            }
            it.status();
            db.write(writeOptions, batch);
            count.addAndGet(-pending);
            purged += pending;
        } catch (RocksDBException e) {
            throw failed("purge", e);
        } finally {
            batch.close();
        }
        return purged;
    }

    @Override
    public long size() {
        ensureOpen();
        return count.get();
    }

    /** Releases every native handle. Closing twice is harmless. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (syncer != null) {
            syncer.close();
        }
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
        writeOptions.close();
        dbOptions.close();
        statistics.close();
        sstFiles.close();
        cfOptions.close();
        blockCache.close();
    }

    /** The number of entries in the expiry index; for tests, which check it empties along with the records. */
    long expiryIndexSize() {
        ensureOpen();
        long n = 0;
        try (RocksIterator it = db.newIterator(expiry)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                n++;
            }
        }
        return n;
    }

    private long countRecords() throws RocksDBException {
        long n = 0;
        try (RocksIterator it = db.newIterator(values)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                n++;
            }
            it.status();
        }
        return n;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
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

    static byte[] encode(StoredRecord r) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + r.binding().length() + SECRET_LENGTH_BYTES
                + r.secret().length() + r.value().length());
        b.put(FORMAT_VERSION)
                .put((byte) (r.tombstone() ? FLAG_TOMBSTONE : 0))
                .putLong(r.expiresAtMillis())
                .put((byte) r.binding().length());
        b.put(r.binding().toByteArray());
        b.putShort((short) r.secret().length());
        b.put(r.secret().toByteArray());
        b.put(r.value().toByteArray());
        return b.array();
    }

    /** Decodes a stored record, or skips it (logged once, counted) when its bytes are not one: null then. */
    private StoredRecord decodeOrSkip(Id key, Bytes valueHash, byte[] bytes) {
        StoredRecord r = decodeOrNull(key, valueHash, bytes);
        if (r == null) {
            skipCorrupt(Bytes.wrap(dataKey(key, valueHash)), bytes.length + " bytes that do not decode");
        }
        return r;
    }

    private void skipCorrupt(Bytes dataKey, String why) {
        // Each corrupt record is logged and counted once (a scan meets it every round); past the cap, only counted.
        if (corruptSeen.size() >= CORRUPT_LOGGED_MAX) {
            corruptRecords.incrementAndGet();
        } else if (corruptSeen.add(dataKey)) {
            corruptRecords.incrementAndGet();
            log.error("store: skipping corrupt record {} ({}); it is served as missing until a replica repairs it",
                    dataKey, why);
        }
    }

    private static StoredRecord decodeOrNull(Id key, Bytes valueHash, byte[] bytes) {
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_VERSION || (bytes[1] & ~FLAG_TOMBSTONE) != 0) {
            return null;
        }
        boolean tombstone = (bytes[1] & FLAG_TOMBSTONE) != 0;
        long expiresAtMillis = ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong();
        int bindingLength = bytes[HEADER_BYTES - 1] & 0xFF;
        int secretAt = HEADER_BYTES + bindingLength + SECRET_LENGTH_BYTES;
        if ((bindingLength != 0 && bindingLength != StoredRecord.HASH_BYTES) || bytes.length < secretAt) {
            return null;
        }
        int secretLength = ByteBuffer.wrap(bytes, secretAt - SECRET_LENGTH_BYTES, SECRET_LENGTH_BYTES).getShort()
                & 0xFFFF;
        int valueOffset = secretAt + secretLength;
        if (secretLength > StoredRecord.SECRET_BYTES_MAX || bytes.length < valueOffset) {
            return null;
        }
        // A value never holds a secret, a tombstone never a value or a binding.
        if (tombstone ? bytes.length != valueOffset || bindingLength != 0 : secretLength != 0) {
            return null;
        }
        return new StoredRecord(key, valueHash, Bytes.of(bytes, valueOffset, bytes.length - valueOffset),
                expiresAtMillis, Bytes.of(bytes, HEADER_BYTES, bindingLength), Bytes.of(bytes, secretAt, secretLength),
                tombstone);
    }

    /** True when the encoded record expires at {@code expiresAtMillis}, or cannot be read at all. */
    private static boolean storedExpiryMatches(byte[] bytes, long expiresAtMillis) {
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_VERSION) {
            return true;
        }
        return ByteBuffer.wrap(bytes, 2, Long.BYTES).getLong() == expiresAtMillis;
    }
}
