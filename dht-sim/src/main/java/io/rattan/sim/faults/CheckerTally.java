package io.rattan.sim.faults;

import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the checker found: violations counted per rule, the first few of each kept with their detail, and the cases
 * counted but not asserted, each by its reason: misses excused (a partition of the key's nodes, a heal's settling
 * time, a copy in flight), acknowledged puts lost to disk faults, puts acknowledged while a disk fault had destroyed
 * copies, acknowledged removes whose every tombstone disk faults destroyed, removed values a replica not yet told returned, values served late by clocks off by more than S. Touched
 * only from the world's thread.
 */
final class CheckerTally {

    /** Violations kept with their detail, per rule. */
    private static final int VIOLATIONS_KEPT = Integer.getInteger("rattan.sim.kept", 5);

    private final VirtualScheduler scheduler;
    private final Supplier<String> faultsInForce;
    private final EnumMap<Rule, Integer> counts = new EnumMap<>(Rule.class);
    private final List<Violation> kept = new ArrayList<>();
    private final EnumMap<Excuse, Long> excused = new EnumMap<>(Excuse.class);
    private long lostToPowerLoss;
    private long lostToDiskLoss;
    private long ackedAfterDestroyed;
    private long ackedOnLiarsWord;
    private long deniedByLiars;
    private long removesOnLiarsWord;
    private long removesUndone;
    private long removedReturnedCutOff;
    private long removedReturnedUntold;
    private long removedReturnedUntoldMaxNanos;
    private long finalMissesAfterClockFault;
    private long servedLateBeyondS;

    CheckerTally(VirtualScheduler scheduler, Supplier<String> faultsInForce) {
        this.scheduler = scheduler;
        this.faultsInForce = faultsInForce;
        for (Rule r : Rule.values()) {
            counts.put(r, 0);
        }
        for (Excuse e : Excuse.values()) {
            excused.put(e, 0L);
        }
    }

    /** {@code rule} is broken now; the faults in force are noted with the detail. */
    void violation(Rule rule, String detail) {
        if (counts.merge(rule, 1, Integer::sum) <= VIOLATIONS_KEPT) {
            kept.add(new Violation(rule, scheduler.nanoTime() / 1e9, detail, faultsInForce.get()));
        }
    }

    void excused(Excuse why) {
        excused.merge(why, 1L, Long::sum);
    }

    /** An acknowledged put lost every copy to disk faults; {@code powerLoss}: a power loss among them. */
    void countLoss(boolean powerLoss) {
        if (powerLoss) {
            lostToPowerLoss++;
        } else {
            lostToDiskLoss++;
        }
    }

    /** An acknowledged remove lost its last tombstone to a disk fault. */
    void countRemoveUndone() {
        removesUndone++;
    }

    void countAckedAfterDestroyed() {
        ackedAfterDestroyed++;
    }

    void countAckedOnLiarsWord() {
        ackedOnLiarsWord++;
    }

    void countRemoveOnLiarsWord() {
        removesOnLiarsWord++;
    }

    void countDeniedByLiars() {
        deniedByLiars++;
    }

    /**
     * A removed value returned by a get that may have read a node its tombstone had not reached, {@code ageNanos}
     * after that node could have been told (not positive: it could not have been yet).
     */
    void countRemovedReturnedUntold(long ageNanos) {
        if (ageNanos <= 0) {
            removedReturnedCutOff++;
            return;
        }
        removedReturnedUntold++;
        removedReturnedUntoldMaxNanos = Math.max(removedReturnedUntoldMaxNanos, ageNanos);
    }

    void countFinalMissAfterClockFault() {
        finalMissesAfterClockFault++;
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

    /** Everything counted and not asserted, for the run's result. */
    FaultRunResult.Counted counted() {
        return new FaultRunResult.Counted(new EnumMap<>(excused), lostToPowerLoss, lostToDiskLoss,
                ackedAfterDestroyed, ackedOnLiarsWord, deniedByLiars, removesOnLiarsWord, removesUndone,
                removedReturnedCutOff,
                removedReturnedUntold,
                removedReturnedUntoldMaxNanos / 1_000_000L,
                finalMissesAfterClockFault, servedLateBeyondS);
    }
}
