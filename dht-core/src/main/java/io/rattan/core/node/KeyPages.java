package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.env.Clock;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.List;

/**
 * Pages of one key's records as gets read them, in slot order ({@link StoredRecord#slot}); a placemark is the slot of
 * the last record a page gave. The same bytes put under several bindings are several records, and a page gives them
 * once, with the longest time left. Reads only; on the node's loop ({@link LocalReplica} owns it).
 */
final class KeyPages {

    private final NodeConfig config;
    private final Store store;
    private final Clock clock;
    private final PlantedBugs bugs;

    KeyPages(NodeConfig config, Store store, Clock clock, PlantedBugs bugs) {
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.bugs = bugs;
    }

    /**
     * One page of the live values under {@code key} after {@code placemark} that pass {@code filter}: at most
     * {@code maxValues} (0: the page limit) and the page's byte limit, but at least one value; the placemark of the
     * last value when more matching ones remain.
     */
    GetReply values(Id key, int maxValues, Bytes placemark, int hops, ValueFilter filter) {
        int max = Math.min(maxValues <= 0 ? config.pageValuesMax() : maxValues, config.pageValuesMax());
        PageValues values = new PageValues();
        long nowMillis = clock.epochMillis();
        int bytes = 0;
        Store.Cursor cursor = new Store.Cursor(key, placemark);
        // Slots are hashed only where a page ends, not for every record read.
        StoredRecord lastIn = null;
        StoredRecord leftOut = null;
        scan:
        while (true) {
            List<StoredRecord> page = store.scanKey(cursor, scanBatch(max, filter));
            if (page.isEmpty()) {
                break;
            }
            for (StoredRecord r : page) {
                if (!r.key().equals(key)) {
                    break scan;
                }
                if (r.tombstone() || !filter.matches(r.stamp())) {
                    continue;
                }
                long ttl = Math.max(0, r.expiresAtMillis() - nowMillis);
                if (values.merged(r, ttl)) {
                    lastIn = r;
                    continue;
                }
                if (values.size() >= max || (bytes + r.value().length() > config.pageBytesMax() && !values.isEmpty())) {
                    leftOut = r;
                    break scan;
                }
                values.add(r, ttl);
                bytes += r.value().length();
                lastIn = r;
            }
            cursor = new Store.Cursor(key, page.get(page.size() - 1).slot());
        }
        // The planted paging bug (test-only): the placemark names the first value left out, not the last in.
        Bytes mark = leftOut == null ? Bytes.EMPTY
                : (bugs.has(PlantedBugs.Bug.PAGE_SKIPS_BOUNDARY) ? leftOut : lastIn).slot();
        return new GetReply(Status.OK, values.list(), mark, hops, "");
    }

    /**
     * The records (values and tombstones) under {@code key} after {@code placemark} that pass {@code filter}, for a
     * quorum get: at most {@code maxRecords} (0: the page limit) and the page's byte limit, but at least one record;
     * in slot order.
     */
    RecordPage records(Id key, Bytes placemark, int maxRecords, ValueFilter filter) {
        int max = Math.min(maxRecords <= 0 ? config.pageValuesMax() : maxRecords, config.pageValuesMax());
        List<StoredRecord> records = new ArrayList<>();
        int bytes = 0;
        Store.Cursor cursor = new Store.Cursor(key, placemark);
        while (true) {
            List<StoredRecord> page = store.scan(cursor, scanBatch(max, filter));
            if (page.isEmpty()) {
                return new RecordPage(records, false);
            }
            for (StoredRecord r : page) {
                if (!r.key().equals(key)) {
                    return new RecordPage(records, false);
                }
                if (!filter.matches(r.stamp())) {
                    continue;
                }
                if (records.size() >= max
                        || (bytes + r.value().length() > config.pageBytesMax() && !records.isEmpty())) {
                    // The planted paging bug (test-only): a full page does not say that more records follow.
                    return new RecordPage(records, !bugs.has(PlantedBugs.Bug.QUORUM_PAGE_NEVER_MORE));
                }
                records.add(r);
                bytes += r.value().length();
            }
            cursor = new Store.Cursor(key, page.get(page.size() - 1).slot());
        }
    }

    /** Records a scan reads at a time: one past the page, or a whole scan page when a filter may pass many over. */
    private static int scanBatch(int max, ValueFilter filter) {
        return filter.isNone() ? Math.min(LocalReplica.SCAN_PAGE, max + 1) : LocalReplica.SCAN_PAGE;
    }
}
