package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The checker's oracle: reads every node's store directly, crashed nodes' disks included, to count a put's copies,
 * find its live holders and its tombstones. Reads only, except {@link #noteTombstones}, which records what it saw.
 */
final class StoreOracle {

    private final VirtualWorld world;

    StoreOracle(VirtualWorld world) {
        this.world = world;
    }

    /** Nodes (any, crashed ones with their disks included) holding a record of {@code p}, value or tombstone. */
    int copies(PutRecord p) {
        return recordHolders(p).size();
    }

    /** Nodes (any, crashed ones included) whose disk would keep a record of {@code p} through a power loss now. */
    int durableCopies(PutRecord p) {
        int n = 0;
        for (int i = 0; i < world.size(); i++) {
            n += world.durableRecord(i, p.key, p.slot).isPresent() ? 1 : 0;
        }
        return n;
    }

    /** Nodes (any, crashed ones included) holding a record of {@code p}, value or tombstone. */
    Set<Integer> recordHolders(PutRecord p) {
        Set<Integer> out = new HashSet<>();
        for (int i = 0; i < world.size(); i++) {
            if (world.store(i).read(p.key, p.slot).isPresent()) {
                out.add(i);
            }
        }
        return out;
    }

    /** Nodes holding {@code p} as a live value; only those alive when {@code aliveOnly}. */
    List<Integer> holders(PutRecord p, boolean aliveOnly) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            if (aliveOnly && !world.isAlive(i)) {
                continue;
            }
            Optional<StoredRecord> r = world.store(i).read(p.key, p.slot);
            if (r.isPresent() && !r.get().tombstone()) {
                out.add(i);
            }
        }
        return out;
    }

    /** Whether any node (crashed ones' disks included) holds a tombstone of {@code p}. */
    boolean anyTombstone(PutRecord p) {
        return !tombstoneHolders(p).isEmpty();
    }

    /** The nodes (crashed ones' disks included) holding a tombstone of {@code p}. */
    List<Integer> tombstoneHolders(PutRecord p) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            Optional<StoredRecord> r = world.store(i).read(p.key, p.slot);
            if (r.isPresent() && r.get().tombstone()) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Live nodes outside {@code except} holding {@code p} under its putter's binding, or its tombstone with the
     * putter's secret: those whose remove would be acknowledged.
     */
    int heldForItsPutter(PutRecord p, Set<Integer> except) {
        Bytes binding = SecretBinding.of(p.sent, p.key, p.hash);
        int n = 0;
        for (int i : world.liveIndexes()) {
            Optional<StoredRecord> r = except.contains(i) ? Optional.empty() : world.store(i).read(p.key, p.slot);
            if (r.isPresent() && (r.get().tombstone() ? r.get().secret().equals(p.sent)
                    : r.get().binding().equals(binding))) {
                n++;
            }
        }
        return n;
    }

    /** Whether a live node holds {@code p}'s bytes live under another binding than its putter's (or none). */
    boolean bytesLiveUnderAnotherBinding(PutRecord p) {
        for (int i : world.liveIndexes()) {
            for (StoredRecord r : world.store(i).scanKey(Store.Cursor.atKey(p.key), Integer.MAX_VALUE)) {
                if (!r.key().equals(p.key)) {
                    break;
                }
                if (!r.tombstone() && r.valueHash().equals(p.hash) && !r.slot().equals(p.slot)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Remembers which nodes hold {@code p}'s tombstone now. */
    void noteTombstones(PutRecord p) {
        for (int i = 0; i < world.size(); i++) {
            Optional<StoredRecord> r = world.store(i).read(p.key, p.slot);
            if (r.isPresent() && r.get().tombstone()) {
                p.tombstoneAt.putIfAbsent(i, world.scheduler().nanoTime());
            }
        }
    }

    /** The value hashes node {@code index}'s store holds, before a disk fault. */
    Set<Bytes> held(int index) {
        Set<Bytes> out = new HashSet<>();
        Store.Cursor cursor = Store.Cursor.START;
        while (true) {
            List<StoredRecord> page = world.store(index).scan(cursor, 1024);
            if (page.isEmpty()) {
                return out;
            }
            for (StoredRecord r : page) {
                out.add(r.valueHash());
                cursor = new Store.Cursor(r.key(), r.slot());
            }
        }
    }
}
