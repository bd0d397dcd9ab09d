package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values of one get's page as they are collected: the same unowned bytes, which several puts with their own
 * secrets hold in several slots, once, with the longest time left. Owned values are one per slot.
 */
final class PageValues {

    private final List<ValueEntry> values = new ArrayList<>();
    private final Map<Bytes, Integer> unownedAt = new HashMap<>();

    /**
     * Whether {@code r}'s bytes are in the page already, as another record's; then the page keeps the longer of the
     * two times left, and {@code r} takes no room of it.
     */
    boolean merged(StoredRecord r, long ttlMillis) {
        Integer at = r.isOwned() ? null : unownedAt.get(r.valueHash());
        if (at == null) {
            return false;
        }
        ValueEntry e = values.get(at);
        values.set(at, new ValueEntry(e.value(), Math.max(e.ttlRemainingMillis(), ttlMillis)));
        return true;
    }

    /** Adds {@code r}'s value, with {@code ttlMillis} left. */
    void add(StoredRecord r, long ttlMillis) {
        if (!r.isOwned()) {
            unownedAt.put(r.valueHash(), values.size());
        }
        values.add(new ValueEntry(r.value(), ttlMillis, r.stamp()));
    }

    int size() {
        return values.size();
    }

    boolean isEmpty() {
        return values.isEmpty();
    }

    List<ValueEntry> list() {
        return values;
    }
}
