package io.rattan.sim.faults;

import io.rattan.api.Id;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Supplier;

/**
 * What the checker found: violations counted per rule, the first few of each kept with their detail, and the cases
 * counted but not asserted, each by its reason: misses excused (a partition of the key's nodes, a heal's settling
 * time, a copy in flight), acknowledged puts lost to disk faults, puts acknowledged while a disk fault had destroyed
 * copies, acknowledged removes whose every tombstone disk faults destroyed, removed values a replica not yet told returned, values served late by clocks off by more than S. Touched
 * only from the world's thread.
 *
 * <p>With liars, each violation of a key is also counted apart when one of the key's true k replicas, or the gateway
 * of the get that found it, is an attacker's node: what a node among a key's k closest can still do, and what a
 * client's own gateway can, are the defences' stated limits (docs/security.md), so the rest are what the defences
 * must hold at 0.
 */
final class CheckerTally {

    /** Violations kept with their detail, per rule. */
    private static final int VIOLATIONS_KEPT = Integer.getInteger("rattan.sim.kept", 5);

    private final VirtualScheduler scheduler;
    private final Supplier<String> faultsInForce;
    private final EnumMap<Rule, Integer> counts = new EnumMap<>(Rule.class);
    private final EnumMap<Rule, Long> withinLimits = new EnumMap<>(Rule.class);
    private BiPredicate<Id, Integer> attackerHolds = (key, gateway) -> false;
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

    /** As {@link #violation(Rule, String)}, of {@code key}: counted apart too if an attacker's node replicates it. */
    void violation(Rule rule, Id key, String detail) {
        violation(rule, key, -1, detail);
    }

    /**
     * As {@link #violation(Rule, Id, String)}, found by a get through node {@code gateway}: counted apart too if that
     * is an attacker's node.
     */
    void violation(Rule rule, Id key, int gateway, String detail) {
        violation(rule, detail);
        if (attackerHolds.test(key, gateway)) {
            withinLimits.merge(rule, 1L, Long::sum);
        }
    }

    /**
     * Whether one of a key's true k replicas, now, or a get's gateway (-1: none) is an attacker's node (a liar, or a
     * node on the liars' host).
     */
    void attackerHolds(BiPredicate<Id, Integer> test) {
        this.attackerHolds = test;
    }

    /** Violations of keys an attacker's node replicated or served when found, by rule (only rules with any). */
    EnumMap<Rule, Long> withinLimits() {
        return new EnumMap<>(withinLimits);
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
