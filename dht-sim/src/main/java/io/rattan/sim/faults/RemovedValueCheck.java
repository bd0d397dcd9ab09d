package io.rattan.sim.faults;

import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntToLongFunction;

/**
 * Rule 2's resurrection half: a removed value may be returned only while some live node that its tombstone never
 * reached holds it live (a replica that missed the remove, not yet told: the get may have read that node), and only
 * for {@link Checker#TOMBSTONE_BOUND_NANOS} after that node could first have been told: the remove's acknowledgement,
 * its last restart, the heal of the last partition that cut it from the key's replicas, or the moment since which a
 * node holding the tombstone has been up and not cut from it, whichever came last. Once
 * a node held the tombstone, its holding the value live again is a resurrection. A remove whose every tombstone disk
 * faults destroyed is undone (counted, as a put lost to disk faults is): its value may come back. The same bytes
 * that a liar raced the put with, under a binding of its own, are the liar's put: they stay (excused); and a value
 * live on liars alone is what they kept of it, refusing its tombstone, and served (excused: a liar's answer). Which
 * copy a get read is told by the slots its sources held the bytes in ({@link GetDiagnosis#servedFrom}): read
 * from another binding's slot alone, or from liars' copies of p's alone, the answer is excused whoever else still
 * holds p's copy untold.
 */
final class RemovedValueCheck {

    private final StoreOracle stores;
    private final CheckerTally tally;
    private final PartitionHistory partitions;
    private final IntToLongFunction restartedAt;
    private final GetDiagnosis diagnosis;
    private final VirtualWorld world;
    private Set<Integer> liars = Set.of();

    RemovedValueCheck(VirtualWorld world, StoreOracle stores, CheckerTally tally, PartitionHistory partitions,
                      IntToLongFunction restartedAt, GetDiagnosis diagnosis) {
        this.world = world;
        this.stores = stores;
        this.tally = tally;
        this.partitions = partitions;
        this.restartedAt = restartedAt;
        this.diagnosis = diagnosis;
    }

    /** The run's liars that refuse every tombstone they are sent (none where no liar does). */
    void liars(Set<Integer> indexes) {
        liars = indexes;
    }

    /** Get {@code g} returned {@code p}'s value. */
    void check(Checker.GetRecord g, PutRecord p) {
        // A remove whose every tombstone disk faults destroyed is undone, as a put can be lost: counted at the fault.
        if (p.removeAckNanos >= g.startNanos() || p.removeUndone) {
            return;
        }
        stores.noteTombstones(p);
        GetDiagnosis.Sources served = diagnosis.servedFrom(g, p);
        if (GetDiagnosis.Sources.liarsBindingOnly(p, served)) {
            // Every node the get read the bytes from held them under another binding only: another put of the same
            // bytes (a liar's race), which p's remove does not remove, however long p's own copy lingers elsewhere
            // (on nodes far from the key, which a digest's answer sends no tombstone, SecretGuard).
            tally.excused(Excuse.LIARS_OWN_COPY);
            return;
        }
        if (served != null && !liars.isEmpty() && liars.containsAll(served.inSlot())) {
            // Read from a liar's own copy of p, kept against its tombstone (a liar's answer: a lie).
            tally.excused(Excuse.LIAR_KEPT_REMOVED);
            return;
        }
        if (p.racedByLiar && g.liveAtStart().getOrDefault(p.hash, List.of()).isEmpty()
                && stores.holders(p, true).isEmpty() && stores.bytesLiveUnderAnotherBinding(p)) {
            // Not p: the same bytes a liar put under its own binding, which p's remove does not remove.
            tally.excused(Excuse.LIARS_OWN_COPY);
            return;
        }
        // A node live at the get's start that had not been told then may have been read before its tombstone came:
        // judged by what the checker had seen at the start, not at the end (the tombstone may arrive meanwhile).
        Set<Integer> toldAtStart = g.toldAtStart().getOrDefault(p.hash, Set.of());
        Set<Integer> untold = new TreeSet<>();
        for (int i : g.liveAtStart().getOrDefault(p.hash, List.of())) {
            if (!toldAtStart.contains(i)) {
                untold.add(i);
            }
        }
        Set<Integer> live = new TreeSet<>(g.liveAtStart().getOrDefault(p.hash, List.of()));
        live.addAll(stores.holders(p, true));
        for (int i : stores.holders(p, true)) {
            if (!p.tombstoneAt.containsKey(i)) {
                untold.add(i);
            }
        }
        if (!live.isEmpty() && liars.containsAll(live)) {
            // The removed value lives on liars only, which keep no tombstone they are sent (a liar's answer: a lie).
            tally.excused(Excuse.LIAR_KEPT_REMOVED);
            return;
        }
        long youngest = Long.MAX_VALUE;
        for (int i : untold) {
            youngest = Math.min(youngest, g.startNanos() - toldFrom(p, i));
        }
        if (youngest < Checker.TOMBSTONE_BOUND_NANOS) {
            tally.countRemovedReturnedUntold(youngest);
            return;
        }
        tally.violation(Rule.REMOVED_RETURNED, p.key, g.gateway(), p.name() + " returned by a get started "
                + millis(g.startNanos() - p.removeAckNanos) + " ms after its remove was acknowledged; live on " + live
                + (untold.isEmpty() ? ", which had all held its tombstone " + p.tombstoneAt.keySet()
                : "; not told on " + untold + " for " + millis(youngest) + " ms since they could have been"));
    }

    /**
     * When node {@code i} could first have been told of {@code p}'s remove: the acknowledgement, its last restart, the
     * heal of the last partition that cut it from the key's replicas, and the first moment since which some node
     * has held the tombstone (as the checker first saw it), been up and not been cut from it (Long.MAX_VALUE while
     * none has: a tombstone on a node that is down, or cut off, tells nobody).
     */
    private long toldFrom(PutRecord p, int i) {
        Set<Integer> group = new TreeSet<>(diagnosis.trueReplicas(p.key));
        group.add(i);
        long from = Math.max(p.removeAckNanos, Math.max(restartedAt.applyAsLong(i), partitions.separatedUntil(group)));
        long teller = Long.MAX_VALUE;
        for (var h : p.tombstoneAt.entrySet()) {
            if (world.isAlive(h.getKey())) {
                long since = Math.max(h.getValue(), restartedAt.applyAsLong(h.getKey()));
                teller = Math.min(teller, Math.max(since, partitions.separatedUntil(new TreeSet<>(List.of(i,
                        h.getKey())))));
            }
        }
        return Math.max(from, teller);
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }
}
