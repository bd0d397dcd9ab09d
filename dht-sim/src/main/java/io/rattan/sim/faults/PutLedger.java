package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Every put the workload made, by value hash and by key, and what faults did to them: a clock change taints the
 * values its node held, a disk fault destroys copies and un-reaches tombstones. Touched only from the world's thread.
 */
final class PutLedger {

    private final StoreOracle stores;
    // Looked up by hash only.
    private final Map<Bytes, PutRecord> byHash = new HashMap<>();
    private final Map<Id, List<PutRecord>> byKey = new LinkedHashMap<>();
    /** The nodes whose clock had a fault in this run. */
    private final Set<Integer> clockFaulted = new HashSet<>();

    PutLedger(StoreOracle stores) {
        this.stores = stores;
    }

    void add(PutRecord p) {
        byHash.put(p.hash, p);
        byKey.computeIfAbsent(p.key, k -> new ArrayList<>()).add(p);
    }

    /** The put of the value whose hash is {@code hash}, or null when nobody put it. */
    PutRecord byHash(Bytes hash) {
        return byHash.get(hash);
    }

    /** Every put so far. */
    List<PutRecord> all() {
        return byKey.values().stream().flatMap(List::stream).toList();
    }

    /** Every put of {@code key} so far, in the order they started. */
    List<PutRecord> puts(Id key) {
        return byKey.getOrDefault(key, List.of());
    }

    /** Runs {@code action} on the put of {@code valueHash} under {@code key} (the workload's values are random). */
    void forPut(Id key, Bytes valueHash, Consumer<PutRecord> action) {
        for (PutRecord p : puts(key)) {
            if (p.hash.equals(valueHash)) {
                action.accept(p);
            }
        }
    }

    /**
     * Node {@code index}'s clock changes (called before and after): every copy it holds expires at another true time,
     * and a step back revives copies that had expired and were not purged yet.
     */
    void clockChanging(int index) {
        clockFaulted.add(index);
        for (Bytes h : stores.held(index)) {
            PutRecord p = byHash.get(h);
            if (p != null) {
                p.clockTainted = true;
            }
        }
    }

    /** Whether node {@code index}'s clock had a fault in this run. */
    boolean clockFaulted(int index) {
        return clockFaulted.contains(index);
    }

    /**
     * A disk fault on node {@code index} destroyed what it held before ({@code before}) and holds no more: its whole
     * disk ({@code wholeDisk}) or what it had not synced. Returns the puts whose last copy it destroyed, and marks
     * those whose acknowledged remove lost its last tombstone ({@link PutRecord#removeUndone}), counting them.
     */
    List<PutRecord> diskFault(int index, Set<Bytes> before, boolean wholeDisk, Runnable removeUndone) {
        List<PutRecord> lost = new ArrayList<>();
        Set<Bytes> after = stores.held(index);
        for (Bytes h : before) {
            PutRecord p = byHash.get(h);
            if (p == null) {
                continue;
            }
            // What this disk held of a tombstone may be gone or back to the live value: a fault, not a resurrection.
            p.tombstoneAt.remove(index);
            if (p.removeStartNanos != Long.MAX_VALUE && p.removeAckNanos == Long.MAX_VALUE) {
                p.faultDuringRemove = true;
            }
            if (p.removeAckNanos != Long.MAX_VALUE && !p.removeUndone && !stores.anyTombstone(p)) {
                p.removeUndone = true;
                removeUndone.run();
            }
            if (after.contains(h)) {
                continue;
            }
            p.lostAt.add(index);
            if (wholeDisk) {
                p.diskLostAt.add(index);
            }
            if (stores.copies(p) == 0 && !p.lostToDiskFaults) {
                p.lostToDiskFaults = true;
                lost.add(p);
            }
        }
        return lost;
    }
}
