package io.rattan.core.node;

import io.rattan.core.store.StoredRecord;
import java.util.List;

/**
 * One replica's records of a key, as a quorum get reads them ({@link LocalReplica#readRecords}); {@code more}: records
 * of the key that pass the read's filter follow.
 */
record RecordPage(List<StoredRecord> records, boolean more) {
    RecordPage {
        records = List.copyOf(records);
    }
}
