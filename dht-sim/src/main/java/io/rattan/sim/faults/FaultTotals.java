package io.rattan.sim.faults;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Locale;

/**
 * What many fault runs counted and did not assert, summed for {@code ./rattan sim faults}'s summary: misses excused,
 * by reason; losses to disk faults, per seed with and without {@code --fsync}; removed values returned by replicas
 * not yet told; the final read; copies back to k. Single-threaded.
 */
final class FaultTotals {

    private final EnumMap<Excuse, Long> excused = new EnumMap<>(Excuse.class);
    // Index 0: without --fsync, 1: with: seeds, puts lost with a power loss among the faults, to whole disks only.
    private final long[] seeds = new long[2];
    private final long[] lostPower = new long[2];
    private final long[] lostDisk = new long[2];
    private final long[] mostLostInASeed = new long[2];
    private long ackedAfterDestroyed;
    private long ackedOnLiarsWord;
    private long deniedByLiars;
    private long removesOnLiarsWord;
    private long removesUndone;
    private long removedCutOff;
    private long removedUntold;
    private long removedUntoldMaxMillis;
    private long finalKeys;
    private long finalValues;
    private long finalMissesAfterClockFault;
    private long copiesChecked;
    private long lastShortMillis = -1;
    private long lastShortSeed;
    private long servedLateBeyondS;
    private RegisterHistories.Summary registers = RegisterHistories.Summary.NONE;
    private long watchesJudged;
    private long watchesReplaced;
    private final EnumMap<Attack, Long> lies = new EnumMap<>(Attack.class);
    private long liars;
    // With liars: violations where an attacker's node replicated the key or served the get, and all, by rule.
    private final EnumMap<Rule, Long> withinLimits = new EnumMap<>(Rule.class);
    private final EnumMap<Rule, Long> withLiars = new EnumMap<>(Rule.class);

    FaultTotals() {
        for (Excuse e : Excuse.values()) {
            excused.put(e, 0L);
        }
    }

    void add(FaultRunResult r) {
        FaultRunResult.Counted c = r.counted();
        c.excused().forEach((e, n) -> excused.merge(e, n, Long::sum));
        int f = r.config().fsync() ? 1 : 0;
        seeds[f]++;
        lostPower[f] += c.lostToPowerLoss();
        lostDisk[f] += c.lostToDiskLoss();
        mostLostInASeed[f] = Math.max(mostLostInASeed[f], c.lostToPowerLoss() + c.lostToDiskLoss());
        ackedAfterDestroyed += c.ackedAfterDestroyed();
        ackedOnLiarsWord += c.ackedOnLiarsWord();
        deniedByLiars += c.deniedByLiars();
        removesOnLiarsWord += c.removesOnLiarsWord();
        removesUndone += c.removesUndone();
        removedCutOff += c.removedReturnedCutOff();
        removedUntold += c.removedReturnedUntold();
        removedUntoldMaxMillis = Math.max(removedUntoldMaxMillis, c.removedReturnedUntoldMaxMillis());
        finalMissesAfterClockFault += c.finalMissesAfterClockFault();
        servedLateBeyondS += c.servedLateBeyondS();
        registers = registers.plus(r.registers());
        watchesJudged += r.watches().judged();
        watchesReplaced += r.watches().replaced();
        liars += r.lies().liars().size();
        r.lies().told().forEach((a, n) -> lies.merge(a, n, Long::sum));
        if (!r.lies().liars().isEmpty()) {
            r.lies().withinLimits().forEach((rule, n) -> withinLimits.merge(rule, n, Long::sum));
            r.violations().forEach((rule, n) -> withLiars.merge(rule, (long) n, Long::sum));
        }
        finalKeys += r.ends().keysRead();
        finalValues += r.ends().valuesChecked();
        copiesChecked += r.ends().copiesChecked();
        if (r.ends().lastShortMillis() > lastShortMillis) {
            lastShortMillis = r.ends().lastShortMillis();
            lastShortSeed = r.config().seed();
        }
    }

    /**
     * Each broken rule's violations where an attacker's node was one of the key's true k replicas when found, or the
     * gateway of the get that found it (the defences' stated limits), and the others, which they must hold at 0.
     */
    private void printByLimits(PrintStream out) {
        if (withLiars.values().stream().allMatch(n -> n == 0)) {
            return;
        }
        out.println("violations where an attacker's node (a liar, or a node on the liars' host) replicated the key "
                + "or was the get's gateway (the stated limits) / the others:");
        withLiars.forEach((rule, n) -> {
            long near = withinLimits.getOrDefault(rule, 0L);
            if (n > 0) {
                out.printf(Locale.ROOT, "  rule %-3s %-60s %8d / %d%n", rule.number(), rule.description(), near,
                        n - near);
            }
        });
    }

    void print(PrintStream out) {
        out.println("acknowledged puts missing from gets, excused (counted, not asserted): " + Excuse.line(excused));
        for (int f = 0; f < 2; f++) {
            if (seeds[f] > 0) {
                out.printf(Locale.ROOT, "lost to disk faults, %s --fsync: %d acknowledged puts over %d seeds (%.2f a "
                                + "seed, at most %d): %d with a power loss among the faults, %d to whole disks only%n",
                        f == 0 ? "without" : "with", lostPower[f] + lostDisk[f], seeds[f],
                        (lostPower[f] + lostDisk[f]) / (double) seeds[f], mostLostInASeed[f], lostPower[f],
                        lostDisk[f]);
            }
        }
        out.printf(Locale.ROOT, "puts acknowledged short of W because a disk fault had destroyed copies (not counted "
                + "toward W): %d%n", ackedAfterDestroyed);
        if (ackedOnLiarsWord > 0) {
            out.printf(Locale.ROOT, "puts acknowledged short of W because liars acknowledged copies they never stored "
                    + "(W - L copies or more, L the liars that acked; not asserted): %d%n", ackedOnLiarsWord);
        }
        if (deniedByLiars > 0) {
            out.printf(Locale.ROOT, "puts and removes that failed after a liar dropped them, or (removes) left "
                    + "fewer than W honest holders under the putter's binding, or (puts) that a liar's gateway took "
                    + "and a root refused for that liar's own rate or share (denial; not asserted): %d%n",
                    deniedByLiars);
        }
        if (removesOnLiarsWord > 0) {
            out.printf(Locale.ROOT, "removes acknowledged on W liars' acks alone, no tombstone written (not "
                    + "asserted): %d%n", removesOnLiarsWord);
        }
        out.printf(Locale.ROOT, "acknowledged removes undone: disk faults destroyed every tombstone: %d%n",
                removesUndone);
        out.printf(Locale.ROOT, "removed values returned by a get that may have read a node not yet told: %d before it "
                + "could have been (cut off, or no tombstone holder up), %d after, at most %d ms after (bound %d s)%s%n",
                removedCutOff, removedUntold, removedUntoldMaxMillis, Checker.TOMBSTONE_BOUND_NANOS / 1_000_000_000L,
                excused.get(Excuse.LIARS_OWN_COPY) + excused.get(Excuse.LIAR_KEPT_REMOVED) == 0 ? ""
                        : "; excused: the same bytes a liar put under its own binding " + excused.get(
                        Excuse.LIARS_OWN_COPY) + ", live on liars only " + excused.get(Excuse.LIAR_KEPT_REMOVED));
        out.printf(Locale.ROOT, "final read: %d keys, %d acknowledged values checked (%d missing after a clock fault "
                + "on a holder, counted apart)%n", finalKeys, finalValues, finalMissesAfterClockFault);
        out.printf(Locale.ROOT, "copies back to k: %d values checked %d s after the faults stopped; %s%n",
                copiesChecked, CopiesBackCheck.BOUND_NANOS / 1_000_000_000L, lastShortMillis < 0
                        ? "none short after the stop" : String.format(Locale.ROOT, "the last short at +%.0f s (seed %d)",
                        lastShortMillis / 1000.0, lastShortSeed));
        out.printf(Locale.ROOT, "values served past expiry + S by nodes whose clocks were off by more than S: %d%s%n",
                servedLateBeyondS, excused.get(Excuse.LIARS_OWN_COPY_PAST_EXPIRY) == 0 ? ""
                        : "; excused: the same bytes a liar put later under its own binding "
                        + excused.get(Excuse.LIARS_OWN_COPY_PAST_EXPIRY));
        if (watchesJudged + watchesReplaced > 0) {
            out.printf(Locale.ROOT, "rule 8: %d watches judged at the end (they lived to it), %d replaced when their "
                    + "gateway went away%n", watchesJudged, watchesReplaced);
        }
        if (registers.keys() > 0) {
            out.println("rule 7 over all seeds" + registers.line());
        }
        if (liars > 0) {
            out.println("liars: " + liars + " over all seeds; lies told, and the rule each breaks when it works:");
            lies.forEach((a, n) -> out.printf(Locale.ROOT, "  %-14s %8d  (rule %s: %s)%n", a.flag(), n,
                    a.caughtBy().number(), a.caughtBy().description()));
            printByLimits(out);
        }
    }
}
