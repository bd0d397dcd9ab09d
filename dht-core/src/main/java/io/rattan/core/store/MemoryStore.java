package io.rattan.core.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * A {@link Store} held in memory: the records in a sorted map by {@code (key, slot)}, plus an expiry index
 * sorted by {@code (expiresAtMillis, key, slot)} so that {@link #purgeExpired} takes the oldest records first
 * without scanning the rest.
 *
 * <p>Serves core tests and the simulator, where thousands of nodes share one JVM, so each record costs one map entry,
 * one set entry and one small slot object. Iteration order never depends on hashing, so runs are deterministic. Not
 * thread-safe: called only from the owning node's event loop (or the simulator's single thread).
 */
public final class MemoryStore implements Store {

    /** Orders the expiry index; (key, slot) is unique among held records, so this is a total order on them. */
    private static final Comparator<Expiry> BY_EXPIRY = Comparator
            .comparingLong(Expiry::atMillis)
            .thenComparing(Expiry::slot);

    private final LongSupplier clock;
    private final TreeMap<Slot, StoredRecord> records = new TreeMap<>();
    private final TreeSet<Expiry> byExpiry = new TreeSet<>(BY_EXPIRY);
    private long clockMark;

    /** A store that reads the time, in epoch milliseconds, from {@code clock}. */
    public MemoryStore(LongSupplier clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock is null");
        }
        this.clock = clock;
    }

    @Override
    public long clockMark() {
        return clockMark;
    }

    @Override
    public void clockMark(long epochMillis) {
        clockMark = epochMillis;
    }

    @Override
    public void write(StoredRecord record) {
        Slot slot = new Slot(record.key(), record.slot());
        StoredRecord old = records.put(slot, record);
        if (old != null) {
            byExpiry.remove(new Expiry(old.expiresAtMillis(), slot));
        }
        byExpiry.add(new Expiry(record.expiresAtMillis(), slot));
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes slot) {
        StoredRecord r = records.get(new Slot(key, slot));
        if (r == null || r.isExpired(clock.getAsLong())) {
            return Optional.empty();
        }
        return Optional.of(r);
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
        Store.checkLimit(limit);
        long nowMillis = clock.getAsLong();
        List<StoredRecord> out = new ArrayList<>(Math.min(limit, 64));
        if (limit == 0) {
            return out;
        }
        // A slot compares below every held slot of the same key whose name is greater, so an exclusive tail map is
        // exactly the cursor rule, the empty name included.
        for (StoredRecord r : records.tailMap(new Slot(from.key(), from.slotExclusive()), false).values()) {
            if (keyOnly && !r.key().equals(from.key())) {
                break;
            }
            if (!r.isExpired(nowMillis)) {
                out.add(r);
                if (out.size() == limit) {
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public int purgeExpired(int limit) {
        Store.checkLimit(limit);
        long nowMillis = clock.getAsLong();
        int purged = 0;
        Iterator<Expiry> it = byExpiry.iterator();
        while (purged < limit && it.hasNext()) {
            Expiry e = it.next();
            if (e.atMillis() > nowMillis) {
                break;
            }
            it.remove();
            records.remove(e.slot());
            purged++;
        }
        return purged;
    }

    @Override
    public long size() {
        return records.size();
    }

    /** A position in the record map; the name may be any length when used as a scan bound. */
    private record Slot(Id key, Bytes name) implements Comparable<Slot> {
        @Override
        public int compareTo(Slot o) {
            int c = key.compareTo(o.key);
            return c != 0 ? c : name.compareTo(o.name);
        }
    }

    /** An entry of the expiry index: when the record in {@code slot} expires. */
    private record Expiry(long atMillis, Slot slot) {
    }

    /** The number of entries in the expiry index; for tests, which check it empties along with the records. */
    int expiryIndexSize() {
        return byExpiry.size();
    }
}
