package io.rattan.node.store;

import java.util.function.LongConsumer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Deletes expired records by reading the expiry index from its start (the earliest time) and stopping at the first
 * entry not yet due. Record and index entry go in the same batch, so the two never disagree after a crash. Called
 * from the one thread that writes records.
 */
final class ExpiryPurge {

    /** Purging writes its deletions in batches of this many records, so a large purge holds bounded memory. */
    private static final int PURGE_BATCH_RECORDS = 1024;

    private final RocksDbHandles rocks;
    private final BoundedWrites writes;
    private final LongConsumer recordsDeleted;

    /** {@code recordsDeleted} hears of each batch of records deleted once it is written. */
    ExpiryPurge(RocksDbHandles rocks, BoundedWrites writes, LongConsumer recordsDeleted) {
        this.rocks = rocks;
        this.writes = writes;
        this.recordsDeleted = recordsDeleted;
    }

    /** Whether a record expired at or before {@code nowMillis} is still held (the index's first entry). */
    boolean anyDue(long nowMillis) {
        try (RocksIterator it = rocks.db().newIterator(rocks.expiry())) {
            it.seekToFirst();
            return it.isValid() && RecordFormat.expiresAtMillis(it.key()) <= nowMillis;
        }
    }

    /** Purges what expired at or before {@code nowMillis}, examining at most {@code limit} index entries. */
    int purge(int limit, long nowMillis) throws RocksDBException {
        RocksDB db = rocks.db();
        ColumnFamilyHandle values = rocks.values();
        ColumnFamilyHandle expiry = rocks.expiry();
        int purged = 0;
        int examined = 0;
        int pending = 0;
        try (WriteBatch batch = new WriteBatch(); RocksIterator it = db.newIterator(expiry)) {
            for (it.seekToFirst(); it.isValid() && examined < limit; it.next()) {
                byte[] indexKey = it.key();
                long expiresAtMillis = RecordFormat.expiresAtMillis(indexKey);
                if (expiresAtMillis > nowMillis) {
                    break;
                }
                examined++;
                batch.delete(expiry, indexKey);
                // Data and index change together, so the record should be there with this expiry. Checking keeps
                // the count exact if an entry was ever damaged: a stray index entry goes, the record stays.
                byte[] dataKey = RecordFormat.dataKeyOf(indexKey);
                byte[] bytes = db.get(values, dataKey);
                if (bytes != null && RecordFormat.storedExpiryMatches(bytes, expiresAtMillis)) {
                    batch.delete(values, dataKey);
                    pending++;
                }
                if (batch.count() >= 2 * PURGE_BATCH_RECORDS) {
                    writes.write(batch);
                    recordsDeleted.accept(pending);
                    purged += pending;
                    pending = 0;
                    batch.clear();
                }
            }
            it.status();
            writes.write(batch);
            recordsDeleted.accept(pending);
            purged += pending;
        }
        return purged;
    }
}
