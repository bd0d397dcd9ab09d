package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileManager;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;

/**
 * A {@link Store} on RocksDB, so a restarted node serves its values from its own disk.
 *
 * <p>Two column families: {@code values} holds the records, {@code expiry} an index of them by expiry time
 * ({@link RecordFormat} has their bytes, {@link RecordReads} reads them, {@link ExpiryPurge} purges them). Every
 * change to a record and its index entry goes in one {@link WriteBatch}, so the two never disagree after a crash.
 * Writes go to the write-ahead log without fsync: they survive a killed process, not a lost machine. With
 * {@link Settings#fsync}, {@link #whenDurable} runs its action only after a WAL sync that began after the write has
 * returned; one sync thread serves every waiter queued while the previous sync ran (group commit).
 *
 * <p>The default column family holds the on-disk format version ({@link StoreFormat}), written at create and checked
 * at open. Failures are typed ({@link StoreException.Kind}): a full disk or the {@link Settings#maxSpaceBytes} limit
 * (enforced by RocksDB's {@link SstFileManager}) is {@code FULL}, anything else {@code IO}; the store then reports
 * itself unhealthy until a write, or a {@link #probe}, succeeds again (RocksDB recovers by itself once space returns).
 * No write waits for ever on a RocksDB write stall behind a flush that space refuses ({@link BoundedWrites}).
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

    /** The expiry clock's high-water mark, in the default column family (the records live in their own). */
    private static final byte[] CLOCK_MARK_KEY = "expiry-clock-mark".getBytes(StandardCharsets.UTF_8);

    private final LongSupplier clock;
    private final RocksDbHandles rocks;
    private final RocksDB db;
    private final WalSyncer syncer;
    private final StoreFaults faults = new StoreFaults();
    private final BoundedWrites writes;
    private final FullStoreReclaim reclaim;
    private final RecordReads reads;
    private final ExpiryPurge purge;
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

    private RocksDbStore(Path dir, LongSupplier clock, RocksDbHandles rocks, Settings settings, Executor loop) {
        this.syncer = settings.fsync() ? new WalSyncer(rocks.db(), loop, faults::syncFailed) : null;
        this.clock = clock;
        this.rocks = rocks;
        this.db = rocks.db();
        this.writes = new BoundedWrites(db, rocks.sstFiles(), settings.maxSpaceBytes(), rocks.memtableBytes(), dir,
                () -> faults.fault() != null);
        this.reads = new RecordReads(rocks, clock, faults);
        this.purge = new ExpiryPurge(rocks, writes, deleted -> count.addAndGet(-deleted));
        this.reclaim = new FullStoreReclaim(rocks, writes);
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
        RocksDbHandles rocks = RocksDbHandles.open(dir, settings);
        RocksDbStore store = null;
        try {
            store = new RocksDbStore(dir, clock, rocks, settings, loop);
            store.count.set(store.countRecords());
            return store;
        } catch (RocksDBException | RuntimeException e) {
            if (store != null) {
                store.close();
            } else {
                rocks.close();
            }
            if (e instanceof RocksDBException re) {
                throw new StoreException("cannot open store in " + dir, re);
            }
            throw (RuntimeException) e;
        }
    }

    @Override
    public long clockMark() {
        ensureOpen();
        try {
            byte[] bytes = db.get(rocks.defaults(), CLOCK_MARK_KEY);
            return bytes == null || bytes.length != Long.BYTES ? 0 : ByteBuffer.wrap(bytes).getLong();
        } catch (RocksDBException e) {
            throw new StoreException("clock mark read failed", e);
        }
    }

    @Override
    public void clockMark(long epochMillis) {
        ensureOpen();
        try {
            // Written from the node's loop on a clock reading: a stall fails it, and the next reading tries again.
            writes.putWithoutWaiting(rocks.defaults(), CLOCK_MARK_KEY,
                    ByteBuffer.allocate(Long.BYTES).putLong(epochMillis).array());
        } catch (RocksDBException e) {
            throw new StoreException("clock mark write failed", e);
        }
    }

    @Override
    public void write(StoredRecord record) {
        ensureOpen();
        if (reclaim.reclaiming()) {
            throw faults.full("write", "expired records' space is being reclaimed");
        }
        Bytes slot = record.slot();
        byte[] dataKey = RecordFormat.dataKey(record.key(), slot);
        try {
            byte[] oldBytes = db.get(rocks.values(), dataKey);
            // An undecodable old record is overwritten, which is how a corrupt entry gets repaired; if it had an
            // index entry, purgeExpired drops that when its time comes.
            StoredRecord old = oldBytes == null ? null : RecordFormat.decodeOrNull(record.key(), slot, oldBytes);
            try (WriteBatch batch = new WriteBatch()) {
                if (old != null) {
                    batch.delete(rocks.expiry(), RecordFormat.expiryKey(old.expiresAtMillis(), dataKey));
                }
                batch.put(rocks.values(), dataKey, RecordFormat.encode(record, slot));
                batch.put(rocks.expiry(), RecordFormat.expiryKey(record.expiresAtMillis(), dataKey),
                        RecordFormat.EMPTY);
                writes.write(batch);
            }
            if (oldBytes == null) {
                count.incrementAndGet();
            }
            faults.overwritten(dataKey, record.key(), slot);
            faults.healed();
        } catch (RocksDBException e) {
            throw faults.failed("write", e);
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
        return faults.fault() == null;
    }

    /** The storage fault the store is in, or null when healthy; readable from any thread. */
    public StoreException.Kind fault() {
        return faults.fault();
    }

    /**
     * While in a fault, tries a small write to see whether the store has recovered (space returned, RocksDB cleared
     * its background error); true when healthy afterwards. Cheap when healthy: it then does nothing.
     */
    public boolean probe() {
        ensureOpen();
        return !reclaim.reclaiming() && faults.probe(writes, rocks.defaults(), clock);
    }

    /** Sets RocksDB's SST space limit (0: none), as an operator freeing or granting space would. */
    public void setMaxSpaceBytes(long bytes) {
        ensureOpen();
        writes.maxSpaceBytes(bytes);
    }

    /** Writes refused because storage was full, since open. */
    public long fullFaults() {
        return faults.fullFaults();
    }

    /** Writes that met a RocksDB write stall, since open. */
    public long writeStalls() {
        return writes.stalls();
    }

    /** Reads or writes that failed with an I/O error, since open. */
    public long ioFaults() {
        return faults.ioFaults();
    }

    /** Distinct undecodable records met (and skipped) since open. */
    public long corruptRecords() {
        return faults.corruptRecords();
    }

    /** RocksDB's count of WAL file syncs since open (ticker {@code WAL_FILE_SYNCED}). */
    public long walSyncs() {
        return closed ? 0 : rocks.statistics().getTickerCount(TickerType.WAL_FILE_SYNCED);
    }

    /** WAL syncs the group-commit thread has completed (0 without fsync); readable from any thread. */
    public long syncsCompleted() {
        return syncer == null ? 0 : syncer.completed();
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes slot) {
        ensureOpen();
        if (slot.length() != StoredRecord.HASH_BYTES) {
            return Optional.empty();
        }
        return reads.read(key, slot);
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
        if (limit == 0) {
            return new ArrayList<>(0);
        }
        return reads.scan(from, limit, keyOnly);
    }

    @Override
    public int purgeExpired(int limit) {
        ensureOpen();
        Store.checkLimit(limit);
        try {
            int purged = purge.purge(limit, clock.getAsLong());
            reclaim.purged(purged, limit);
            return purged;
        } catch (RocksDBException e) {
            StoreException failure = faults.failed("purge", e);
            reclaim.purgeFailed(failure, () -> purge.anyDue(clock.getAsLong()));
            throw failure;
        }
    }

    /** The SST files' bytes on disk, every column family's (what {@code --store-max-bytes} limits); 0 once closed. */
    public long sstBytes() {
        return closed ? 0 : rocks.sstFiles().getTotalSize();
    }

    @Override
    public long size() {
        ensureOpen();
        return count.get();
    }

    /**
     * Writes a consistent copy of the store, as it is now, to {@code target}, which must not exist: RocksDB's
     * checkpoint (the memtable flushed, SST files hard-linked where the file system allows and copied elsewhere). A
     * node opens the copy as it opens its own store. Call it where the store's other work runs.
     *
     * @throws IOException when the checkpoint cannot be written (the target exists, the disk is full)
     */
    public void checkpoint(Path target) throws IOException {
        ensureOpen();
        try (Checkpoint c = Checkpoint.create(db)) {
            c.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw new IOException("checkpoint to " + target + " failed: " + e.getMessage(), e);
        }
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
        writes.close();
        rocks.close();
    }

    /** The number of entries in the expiry index; for tests, which check it empties along with the records. */
    long expiryIndexSize() {
        ensureOpen();
        long n = 0;
        try (RocksIterator it = db.newIterator(rocks.expiry())) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                n++;
            }
        }
        return n;
    }

    private long countRecords() throws RocksDBException {
        long n = 0;
        try (RocksIterator it = db.newIterator(rocks.values())) {
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
}
