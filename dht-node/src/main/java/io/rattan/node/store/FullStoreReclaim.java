package io.rattan.node.store;

import io.rattan.core.store.StoreException;
import java.util.function.BooleanSupplier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees a full store's expired records' space. Under RocksDB's space limit a full store cannot purge: deleting writes
 * too, and the flush that would hold the deletions, and the compaction that would drop the records, are refused, so a
 * store that filled stayed full after every record in it expired (docs/history.md). When a purge fails so while
 * expired records are held, RocksDB's limit is lifted ({@link BoundedWrites#liftLimit}) and the store takes no record
 * write until the purges have caught up; then both column families are compacted and the limit put back. The store
 * may so exceed its limit for a while, by the deletions and a compaction's output; once the expired records are
 * gone it is within it again, or full of live records. Called from the store thread, but {@link #reclaiming} from
 * any.
 */
final class FullStoreReclaim {

    // Under the store's name, as the store logs, so that log settings for it apply.
    private static final Logger log = LoggerFactory.getLogger(RocksDbStore.class);

    private final RocksDbHandles rocks;
    private final BoundedWrites writes;
    private volatile boolean reclaiming;

    FullStoreReclaim(RocksDbHandles rocks, BoundedWrites writes) {
        this.rocks = rocks;
        this.writes = writes;
    }

    /** While true the store refuses record writes as full and its probe does not heal it. */
    boolean reclaiming() {
        return reclaiming;
    }

    /** A purge failed with {@code failure}; {@code anyDue} says whether expired records are held. */
    void purgeFailed(StoreException failure, BooleanSupplier anyDue) {
        if (reclaiming || failure.kind() != StoreException.Kind.FULL || writes.maxSpaceBytes() == 0
                || !anyDue.getAsBoolean()) {
            return;
        }
        reclaiming = true;
        writes.liftLimit(true);
        log.warn("store: full while holding expired records; the space limit is lifted until they are purged and "
                + "compacted away ({} bytes of SST files)", rocks.sstFiles().getTotalSize());
    }

    /** A purge of at most {@code limit} records deleted {@code purged}: fewer, and what was due is gone. */
    void purged(int purged, int limit) {
        if (!reclaiming || purged >= limit) {
            return;
        }
        RocksDB db = rocks.db();
        try {
            db.compactRange(rocks.values());
            db.compactRange(rocks.expiry());
        } catch (RocksDBException e) {
            log.warn("store: compacting away expired records failed: {}", e.getMessage());
        } finally {
            writes.liftLimit(false);
            reclaiming = false;
        }
        log.info("store: expired records purged and compacted; {} bytes of SST files against a limit of {}",
                rocks.sstFiles().getTotalSize(), writes.maxSpaceBytes());
    }
}
