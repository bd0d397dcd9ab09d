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
 * A store's writes, which wait out a RocksDB write stall for at most {@link #STALL_BOUND_MILLIS}. A blocking write
 * waits while the memtables wait for a flush; when the space limit refuses that flush, RocksDB retries it for ever and
 * the write, the store thread and every task queued behind it wait with it (docs/history.md). So writes are made with
 * {@code no_slowdown}: a stall comes back at once and the write is tried again, backing off, until the stall ends or
 * the bound passes; then it fails, as FULL when a space limit is set, else as an I/O error. While the store is in a
 * fault, a stalled write fails at once, so the tasks queued behind it do not each wait out the bound.
 */
final class BoundedWrites implements AutoCloseable {

    static final long STALL_BOUND_MILLIS = 2_000;
    private static final long BACKOFF_MAX_MILLIS = 20;
    /** Below this much free space on the store's disk, a stall that outlasts the bound counts as a full disk. */
    private static final long LOW_DISK_BYTES = 64L << 20;

    @FunctionalInterface
    private interface Write {
        void run(WriteOptions options) throws RocksDBException;
    }

    private final RocksDB db;
    private final WriteOptions options = new WriteOptions().setNoSlowdown(true);
    private final SstFileManager sstFiles;
    private final Path dir;
    private final BooleanSupplier faulted;
    private final AtomicLong stalls = new AtomicLong();
    private volatile long maxSpaceBytes;

    /** {@code faulted} says whether the store is in a fault now; {@code dir} is the store's directory. */
    BoundedWrites(RocksDB db, SstFileManager sstFiles, long maxSpaceBytes, Path dir, BooleanSupplier faulted) {
        this.db = db;
        this.sstFiles = sstFiles;
        this.dir = dir;
        this.maxSpaceBytes = maxSpaceBytes;
        this.faulted = faulted;
    }

    void write(WriteBatch batch) throws RocksDBException {
        retrying(o -> db.write(o, batch));
    }

    void put(ColumnFamilyHandle family, byte[] key, byte[] value) throws RocksDBException {
        retrying(o -> db.put(family, o, key, value));
    }

    /** Sets RocksDB's SST space limit (0: none), which also decides what a stall that outlasts the bound is. */
    void maxSpaceBytes(long bytes) {
        sstFiles.setMaxAllowedSpaceUsage(bytes);
        maxSpaceBytes = bytes;
    }

    /** Writes that met a stall and were tried again, since open. */
    long stalls() {
        return stalls.get();
    }

    private void retrying(Write write) throws RocksDBException {
        long start = System.nanoTime();
        long backoff = 1;
        while (true) {
            try {
                write.run(options);
                return;
            } catch (RocksDBException e) {
                if (!isStall(e)) {
                    throw e;
                }
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (faulted.getAsBoolean() || waited >= STALL_BOUND_MILLIS) {
                    throw stalled(waited);
                }
                stalls.incrementAndGet();
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw stalled(waited);
                }
                backoff = Math.min(2 * backoff, BACKOFF_MAX_MILLIS);
            }
        }
    }

    private static boolean isStall(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete;
    }

    /**
     * A stall that outlasted the bound, typed as {@link StoreFaults} reads it: FULL under a space limit or on a disk
     * nearly full (the flushes RocksDB cannot finish for ever are those refused for space), else an I/O error.
     */
    private RocksDBException stalled(long waitedMillis) {
        boolean full = maxSpaceBytes > 0 || dir.toFile().getUsableSpace() < LOW_DISK_BYTES;
        String message = full
                ? "Max allowed space was reached: writes stalled " + waitedMillis + " ms on a flush space refuses"
                : "writes stalled " + waitedMillis + " ms waiting for a flush";
        return new RocksDBException(message, new Status(full ? Status.Code.IOError : Status.Code.Incomplete,
                full ? Status.SubCode.NoSpace : Status.SubCode.None, message));
    }

    @Override
    public void close() {
        options.close();
    }
}
