package io.rattan.core.virtual;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * A virtual node's disk with two faults: it can be full (every write throws {@link StoreException}, as RocksDB does
 * on ENOSPC), and it can lose power. Writes reach the disk at the next sync, at the first whole multiple of the sync
 * interval of virtual time after the write, as RocksDB's write-ahead log reaches it when the OS flushes it (the real
 * node without {@code --fsync} writes the WAL without syncing it), or sooner by an explicit sync
 * ({@link #syncThrough}, with {@code --fsync}: {@link SyncingStore}); a power loss drops every write not yet synced. Reads see every write, synced
 * or not, as a live process does. Purges of expired records are not undone (what they removed had expired).
 * Single-threaded, like the world.
 */
final class FaultyStore implements Store {

    /** A write not yet synced: what the slot held before it (null: nothing), to restore at a power loss. */
    private record Unsynced(long seq, long syncedAtNanos, Id key, Bytes slot, StoredRecord before) {
    }

    private final MemoryStore disk;
    private final VirtualScheduler scheduler;
    private final long syncIntervalNanos;
    private final ArrayDeque<Unsynced> unsynced = new ArrayDeque<>();
    private boolean full;
    private long refused;
    private long writes;

    FaultyStore(MemoryStore disk, VirtualScheduler scheduler, long syncIntervalNanos) {
        this.disk = disk;
        this.scheduler = scheduler;
        this.syncIntervalNanos = syncIntervalNanos;
    }

    MemoryStore disk() {
        return disk;
    }

    void full(boolean isFull) {
        this.full = isFull;
    }

    boolean isFull() {
        return full;
    }

    /**
     * False while the disk is full, as the real store reports its fault ({@code RocksDbStore.healthy}): from the
     * first refused write until a write succeeds again, and a node writes its clock mark every S/2, so that is the
     * time the disk is full. The node is then not ready, and does not answer gets from its own store alone.
     */
    @Override
    public boolean healthy() {
        return !full;
    }

    /** Writes refused because the disk was full. */
    long refused() {
        return refused;
    }

    @Override
    public void write(StoredRecord record) {
        if (full) {
            refused++;
            throw new StoreException(StoreException.Kind.FULL, "no space left on device (simulated full disk)", null);
        }
        long now = scheduler.nanoTime();
        forgetSynced(now);
        Bytes slot = record.slot();
        StoredRecord before = disk.read(record.key(), slot).orElse(null);
        long syncAt = (now / syncIntervalNanos + 1) * syncIntervalNanos;
        unsynced.addLast(new Unsynced(++writes, syncAt, record.key(), slot, before));
        disk.write(record);
    }

    /** Writes made so far: a sync that begins now covers them ({@link #syncThrough}). */
    long writesSoFar() {
        return writes;
    }

    /** An explicit sync ({@code --fsync}) returned: the first {@code seq} writes are on the disk. */
    void syncThrough(long seq) {
        while (!unsynced.isEmpty() && unsynced.peekFirst().seq() <= seq) {
            unsynced.removeFirst();
        }
    }

    /** What a power loss now would leave of the record in {@code slot} under {@code key}. */
    Optional<StoredRecord> durableRead(Id key, Bytes slot) {
        forgetSynced(scheduler.nanoTime());
        for (Unsynced u : unsynced) {
            if (u.key().equals(key) && u.slot().equals(slot)) {
                return Optional.ofNullable(u.before());
            }
        }
        return disk.read(key, slot);
    }

    private void forgetSynced(long now) {
        while (!unsynced.isEmpty() && unsynced.peekFirst().syncedAtNanos() <= now) {
            unsynced.removeFirst();
        }
    }

    /**
     * What the disk holds after a power loss now: every synced write, none of the others. Returns a new store (a
     * {@link MemoryStore} cannot delete a record, and undoing a write may have to), reading time from {@code clock}.
     */
    MemoryStore afterPowerLoss(LongSupplier clock) {
        forgetSynced(scheduler.nanoTime());
        TreeMap<String, StoredRecord> image = new TreeMap<>();
        Store.Cursor cursor = Store.Cursor.START;
        while (true) {
            List<StoredRecord> page = disk.scan(cursor, 1024);
            if (page.isEmpty()) {
                break;
            }
            for (StoredRecord r : page) {
                Bytes slot = r.slot();
                image.put(slot(r.key(), slot), r);
                cursor = new Store.Cursor(r.key(), slot);
            }
        }
        for (Iterator<Unsynced> it = unsynced.descendingIterator(); it.hasNext(); ) {
            Unsynced u = it.next();
            if (u.before() == null) {
                image.remove(slot(u.key(), u.slot()));
            } else {
                image.put(slot(u.key(), u.slot()), u.before());
            }
        }
        unsynced.clear();
        MemoryStore restored = new MemoryStore(clock);
        // The mark is rewritten every S/2, ahead of the clock: the virtual disk keeps the last one at a power loss.
        restored.clockMark(disk.clockMark());
        for (StoredRecord r : image.values()) {
            restored.write(r);
        }
        return restored;
    }

    private static String slot(Id key, Bytes slot) {
        return key.toHex() + slot.toHex();
    }

    @Override
    public Optional<StoredRecord> read(Id key, Bytes slot) {
        return disk.read(key, slot);
    }

    @Override
    public long clockMark() {
        return disk.clockMark();
    }

    @Override
    public void clockMark(long epochMillis) {
        if (full) {
            throw new StoreException("no space left on device (simulated full disk)", null);
        }
        disk.clockMark(epochMillis);
    }

    @Override
    public List<StoredRecord> scan(Cursor from, int limit) {
        return disk.scan(from, limit);
    }

    @Override
    public List<StoredRecord> scanKey(Cursor from, int limit) {
        return disk.scanKey(from, limit);
    }

    @Override
    public int purgeExpired(int limit) {
        return disk.purgeExpired(limit);
    }

    @Override
    public long size() {
        return disk.size();
    }
}
