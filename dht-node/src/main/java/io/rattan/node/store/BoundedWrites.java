package io.rattan.node.store;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileManager;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A store's writes, none of which waits on a RocksDB write stall for ever. A blocking write waits while the memtables
 * wait for a flush; when the space limit (or a full disk) refuses that flush, RocksDB retries it for ever and the
 * write, the store thread and every task queued behind it wait with it (docs/history.md). So each write is first made
 * with {@code no_slowdown}, which returns at once from a stall. When space is short (the SST files within
 * {@link #flushBytes} of the limit, or the disk within that or 64 MiB of full), the write is tried again, backing off,
 * until the stall ends or {@link #STALL_BOUND_MILLIS} pass, and then fails as FULL. Otherwise the stall is RocksDB's
 * ordinary back-pressure (a flush or compaction catching up) and the write waits for it, as RocksDB means it to. A
 * stalled write fails at once while the store is in a fault (the tasks queued behind it do not each wait out the
 * bound), and always when the node's event loop makes it (the clock's mark, the fault probe).
 */
final class BoundedWrites implements AutoCloseable {

    static final long STALL_BOUND_MILLIS = 2_000;
    private static final long BACKOFF_MAX_MILLIS = 20;
    /** Free space on the store's disk under which a flush may be refused whatever its size. */
    private static final long LOW_DISK_BYTES = 64L << 20;

    @FunctionalInterface
    private interface Write {
        void run(WriteOptions options) throws RocksDBException;
    }

    private final RocksDB db;
    private final WriteOptions noSlowdown = new WriteOptions().setNoSlowdown(true);
    private final WriteOptions blocking = new WriteOptions();
    private final SstFileManager sstFiles;
    private final long flushBytes;
    private final Path dir;
    private final BooleanSupplier faulted;
    private final AtomicLong stalls = new AtomicLong();
    private volatile long maxSpaceBytes;
    private volatile boolean lifted;

    /**
     * @param flushBytes the most the memtables can hold, which their flushes add to the SST files
     * @param dir        the store's directory, whose disk's free space is read when a write stalls
     * @param faulted    whether the store is in a fault now
     */
    BoundedWrites(RocksDB db, SstFileManager sstFiles, long maxSpaceBytes, long flushBytes, Path dir,
                  BooleanSupplier faulted) {
        this.db = db;
        this.sstFiles = sstFiles;
        this.maxSpaceBytes = maxSpaceBytes;
        this.flushBytes = flushBytes;
        this.dir = dir;
        this.faulted = faulted;
    }

    void write(WriteBatch batch) throws RocksDBException {
        run(o -> db.write(o, batch), true);
    }

    void put(ColumnFamilyHandle family, byte[] key, byte[] value) throws RocksDBException {
        run(o -> db.put(family, o, key, value), true);
    }

    /** A write made from the node's event loop, which must not wait: a stall fails it at once. */
    void putWithoutWaiting(ColumnFamilyHandle family, byte[] key, byte[] value) throws RocksDBException {
        run(o -> db.put(family, o, key, value), false);
    }

    /** Sets RocksDB's SST space limit (0: none), as an operator freeing or granting space would. */
    void maxSpaceBytes(long bytes) {
        maxSpaceBytes = bytes;
        applyLimit();
    }

    /** The SST space limit set now (0: none). */
    long maxSpaceBytes() {
        return maxSpaceBytes;
    }

    /**
     * Lifts RocksDB's own limit while the limit set stays in force for {@link #spaceShort}, or (with false) puts it
     * back: what {@link RocksDbStore} does to reclaim expired records' space.
     */
    void liftLimit(boolean lift) {
        lifted = lift;
        applyLimit();
    }

    private void applyLimit() {
        sstFiles.setMaxAllowedSpaceUsage(lifted ? 0 : maxSpaceBytes);
    }

    /** Writes that met a stall, since open. */
    long stalls() {
        return stalls.get();
    }

    private void run(Write write, boolean mayWait) throws RocksDBException {
        long start = System.nanoTime();
        long backoff = 1;
        while (true) {
            try {
                write.run(noSlowdown);
                return;
            } catch (RocksDBException e) {
                if (!isStall(e)) {
                    throw e;
                }
            }
            if (backoff == 1) {
                stalls.incrementAndGet();
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (!mayWait || faulted.getAsBoolean()) {
                throw stalled(waited, "fails at once");
            }
            if (!spaceShort()) {
                write.run(blocking);
                return;
            }
            if (waited >= STALL_BOUND_MILLIS) {
                throw stalled(waited, "space is short");
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw stalled(waited, "interrupted");
            }
            backoff = Math.min(2 * backoff, BACKOFF_MAX_MILLIS);
        }
    }

    /** Whether the flushes a stall waits for may be refused for space: near the limit, or the disk near full. */
    private boolean spaceShort() {
        long limit = maxSpaceBytes;
        return limit > 0 && sstFiles.getTotalSize() + flushBytes >= limit
                || dir.toFile().getUsableSpace() < Math.max(LOW_DISK_BYTES, flushBytes);
    }

    private static boolean isStall(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete;
    }

    /** A stall the write did not wait out, typed as {@link StoreFaults} reads it: FULL when space is short. */
    private RocksDBException stalled(long waitedMillis, String why) {
        boolean full = spaceShort();
        String message = (full ? "Max allowed space was reached: " : "")
                + "a write stalled behind a flush for " + waitedMillis + " ms (" + why + ")";
        return new RocksDBException(message, new Status(full ? Status.Code.IOError : Status.Code.Incomplete,
                full ? Status.SubCode.NoSpace : Status.SubCode.None, message));
    }

    @Override
    public void close() {
        noSlowdown.close();
        blocking.close();
    }
}
