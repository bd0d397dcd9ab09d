package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RocksDbStore}'s faults: the storage fault it is in (none, {@code FULL} or {@code IO}) and how it leaves it
 * (a write or a probe that succeeds), the counts of full and I/O failures, and the corrupt records met, each logged
 * once. Thread-safe: the counters are atomic and the fault volatile, read by metrics from any thread.
 */
final class StoreFaults {

    // Under the store's name, as the store has always logged, so that log settings for it keep applying.
    private static final Logger log = LoggerFactory.getLogger(RocksDbStore.class);
    /** The probe write's key in the default column family; its value is overwritten each time. */
    private static final byte[] PROBE_KEY = "rattan.probe".getBytes(StandardCharsets.UTF_8);
    /** Corrupt records logged individually at most; beyond this they are only counted. */
    private static final int CORRUPT_LOGGED_MAX = 1000;

    private final AtomicLong faultsFull = new AtomicLong();
    private final AtomicLong faultsIo = new AtomicLong();
    private final AtomicLong corruptRecords = new AtomicLong();
    private final Set<Bytes> corruptSeen = ConcurrentHashMap.newKeySet();
    private volatile StoreException.Kind fault;

    /** The storage fault the store is in, or null when healthy. */
    StoreException.Kind fault() {
        return fault;
    }

    long fullFaults() {
        return faultsFull.get();
    }

    long ioFaults() {
        return faultsIo.get();
    }

    long corruptRecords() {
        return corruptRecords.get();
    }

    /** A write succeeded: whatever fault the store was in is over. */
    void healed() {
        if (fault != null) {
            log.info("store: recovered from a {} fault; writes succeed again", fault);
            fault = null;
        }
    }

    void syncFailed(RocksDBException e) {
        fault = StoreException.Kind.IO;
        faultsIo.incrementAndGet();
        log.error("store: WAL sync failed, acknowledgements wait for a sync that succeeds: {}", e.getMessage());
    }

    /** Counts a failed operation, enters its fault, and returns the exception to throw. */
    StoreException failed(String what, RocksDBException e) {
        return fail(kindOf(e), what, e.getMessage(), e);
    }

    /** As {@link #failed}, for an operation the store itself refuses for want of space. */
    StoreException full(String what, String why) {
        return fail(StoreException.Kind.FULL, what, why, null);
    }

    private StoreException fail(StoreException.Kind kind, String what, String message, RocksDBException cause) {
        (kind == StoreException.Kind.FULL ? faultsFull : faultsIo).incrementAndGet();
        if (fault == null) {
            log.error("store: {} failed ({}); the node reports not ready until it recovers: {}", what, kind, message);
        }
        fault = kind;
        return new StoreException(kind, what + " failed: " + message, cause);
    }

    /** FULL for ENOSPC and RocksDB's space limit (which its Java status shows only by message), else IO. */
    private static StoreException.Kind kindOf(RocksDBException e) {
        Status st = e.getStatus();
        boolean full = st != null && st.getSubCode() == Status.SubCode.NoSpace;
        String msg = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
        return full || msg.contains("space") ? StoreException.Kind.FULL : StoreException.Kind.IO;
    }

    /**
     * While in a fault, tries a small write to see whether the store has recovered; true when healthy afterwards.
     * Cheap when healthy: it then does nothing.
     */
    boolean probe(BoundedWrites writes, ColumnFamilyHandle defaults, LongSupplier clock) {
        if (fault == null) {
            return true;
        }
        try {
            writes.putWithoutWaiting(defaults, PROBE_KEY,
                    Long.toString(clock.getAsLong()).getBytes(StandardCharsets.UTF_8));
            healed();
            return true;
        } catch (RocksDBException e) {
            log.debug("store: still faulted: {}", e.getMessage());
            return false;
        }
    }

    /** Notes a record that does not decode, which the caller skips. */
    void skipCorrupt(Bytes dataKey, String why) {
        // Each corrupt record is logged and counted once (a scan meets it every round); past the cap, only counted.
        if (corruptSeen.size() >= CORRUPT_LOGGED_MAX) {
            corruptRecords.incrementAndGet();
        } else if (corruptSeen.add(dataKey)) {
            corruptRecords.incrementAndGet();
            log.error("store: skipping corrupt record {} ({}); it is served as missing until a replica repairs it",
                    dataKey, why);
        }
    }

    /** A write replaced the record under {@code dataKey}: if it was corrupt, it is repaired. */
    void overwritten(byte[] dataKey, Id key, Bytes slot) {
        if (corruptSeen.remove(Bytes.wrap(dataKey))) {
            log.info("store: corrupt record {} {} was overwritten by a good copy", key.shortHex(), slot);
        }
    }
}
