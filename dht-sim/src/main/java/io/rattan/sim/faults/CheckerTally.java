package io.rattan.sim.faults;

import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the checker found: violations counted per rule, the first few of each kept with their detail, and the cases
 * counted but not asserted (misses during a partition, at a heal, racing a copy; values served late by clocks off
 * by more than S). Touched only from the world's thread.
 */
final class CheckerTally {

    /** Violations kept with their detail, per rule. */
    private static final int VIOLATIONS_KEPT = Integer.getInteger("rattan.sim.kept", 5);

    private final VirtualScheduler scheduler;
    private final Supplier<String> faultsInForce;
    private final EnumMap<Rule, Integer> counts = new EnumMap<>(Rule.class);
    private final List<Violation> kept = new ArrayList<>();
    private long missesDuringPartition;
    private long missesAtHeal;
    private long missesInFlight;
    private long servedLateBeyondS;

    CheckerTally(VirtualScheduler scheduler, Supplier<String> faultsInForce) {
        this.scheduler = scheduler;
        this.faultsInForce = faultsInForce;
        for (Rule r : Rule.values()) {
            counts.put(r, 0);
        }
    }

    /** {@code rule} is broken now; the faults in force are noted with the detail. */
    void violation(Rule rule, String detail) {
        if (counts.merge(rule, 1, Integer::sum) <= VIOLATIONS_KEPT) {
            kept.add(new Violation(rule, scheduler.nanoTime() / 1e9, detail, faultsInForce.get()));
        }
    }

    void countMissDuringPartition() {
        missesDuringPartition++;
    }

    void countMissAtHeal() {
        missesAtHeal++;
    }

    void countMissInFlight() {
        missesInFlight++;
    }

    void countServedLateBeyondS() {
        servedLateBeyondS++;
    }

    EnumMap<Rule, Integer> counts() {
        return new EnumMap<>(counts);
    }

    List<Violation> kept() {
        return List.copyOf(kept);
    }

    long missesDuringPartition() {
        return missesDuringPartition;
    }

    long missesAtHeal() {
        return missesAtHeal;
    }

    long missesInFlight() {
        return missesInFlight;
    }

    long servedLateBeyondS() {
        return servedLateBeyondS;
    }
}
