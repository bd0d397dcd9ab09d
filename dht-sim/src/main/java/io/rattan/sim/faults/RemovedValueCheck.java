package io.rattan.sim.faults;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rule 2's resurrection half: a removed value may be returned only while some live node that its tombstone never
 * reached holds it live (a replica that missed the remove, not yet told): the get may have read that node. Once a
 * node held the tombstone, its holding the value live again is a resurrection.
 */
final class RemovedValueCheck {

    private final StoreOracle stores;
    private final CheckerTally tally;

    RemovedValueCheck(StoreOracle stores, CheckerTally tally) {
        this.stores = stores;
        this.tally = tally;
    }

    /** Get {@code g} returned {@code p}'s value. */
    void check(Checker.GetRecord g, PutRecord p) {
        if (p.removeAckNanos >= g.startNanos()) {
            return;
        }
        stores.noteTombstones(p);
        // A node live at the get's start that had not been told then may have been read before its tombstone came:
        // judged by what the checker had seen at the start, not at the end (the tombstone may arrive meanwhile).
        Set<Integer> toldAtStart = g.toldAtStart().getOrDefault(p.hash, Set.of());
        boolean untold = false;
        for (int i : g.liveAtStart().getOrDefault(p.hash, List.of())) {
            untold |= !toldAtStart.contains(i);
        }
        Set<Integer> live = new TreeSet<>(g.liveAtStart().getOrDefault(p.hash, List.of()));
        live.addAll(stores.holders(p, true));
        for (int i : stores.holders(p, true)) {
            untold |= !p.tombstoneAt.contains(i);
        }
        if (!untold) {
            tally.violation(Rule.REMOVED_RETURNED, p.name() + " returned by a get started "
                    + millis(g.startNanos() - p.removeAckNanos) + " ms after its remove was acknowledged; live on "
                    + live + ", which had all held its tombstone " + p.tombstoneAt);
        }
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }
}
