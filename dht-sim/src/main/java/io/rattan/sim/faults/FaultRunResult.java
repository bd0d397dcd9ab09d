package io.rattan.sim.faults;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one fault run did and found.
 *
 * @param config                the run (its {@link FaultRunConfig#replayCommand()} replays it)
 * @param traceHash             the network's trace hash at the end: a replay must give the same
 * @param events                events the world ran
 * @param fired                 faults injected, by kind
 * @param violations            broken rules, by rule (every rule present, 0 when none)
 * @param firstViolations       the first few, with detail
 * @param counted               what the checker counted and did not assert, each by its reason
 * @param ends                  the end of the run: the final read and the copies back on k replicas
 * @param ops                   client operations issued
 * @param escapedExceptions     exceptions thrown out of a node's tasks or its handleClient (full disks)
 * @param writesRefused         writes a full disk refused
 * @param rule1Causes           rule-1 misses (not the clock-tainted ones) by diagnosed cause ({@link GetDiagnosis})
 * @param oneReads              gets of consistency one served by a replica, and how many of them read a second replica
 *                              because the view was unsettled or the store in a fault
 * @param registers             what the register check saw ({@link RegisterHistories.Summary#NONE} without registers)
 * @param watches               what the watch check saw ({@link Watches#NONE} without watches)
 * @param lies                  the liars and the lies they told ({@link Lies#NONE} without liars)
 */
public record FaultRunResult(FaultRunConfig config, long traceHash, long events, EnumMap<FaultKind, Integer> fired,
                             EnumMap<Rule, Integer> violations, List<Violation> firstViolations,
                             Counted counted, Ends ends, long ops, long escapedExceptions, long writesRefused,
                             java.util.Map<String, Integer> rule1Causes, SecondReads oneReads,
                             RegisterHistories.Summary registers, Watches watches, Lies lies) {

    /**
     * The liars' node indexes, the lies they told by attack (what the lies achieved, the rules count), and of the
     * violations, those where an attacker's node (a liar, or a node on the liars' host) was one of the key's true k
     * replicas when found or the gateway of the get that found it, by rule: the defences' stated limits
     * (docs/security.md).
     */
    public record Lies(List<Integer> liars, Map<Attack, Long> told, Map<Rule, Long> withinLimits) {
        public static final Lies NONE = new Lies(List.of(), Map.of(), Map.of());

        public Lies {
            liars = List.copyOf(liars);
            EnumMap<Attack, Long> byAttack = new EnumMap<>(Attack.class);
            byAttack.putAll(told);
            told = Collections.unmodifiableMap(byAttack);
            EnumMap<Rule, Long> byRule = new EnumMap<>(Rule.class);
            byRule.putAll(withinLimits);
            withinLimits = Collections.unmodifiableMap(byRule);
        }

        String line() {
            if (liars.isEmpty()) {
                return "";
            }
            StringBuilder b = new StringBuilder(", liars " + liars + " told");
            told.forEach((a, n) -> b.append(' ').append(a.flag()).append(' ').append(n));
            if (!withinLimits.isEmpty()) {
                b.append("; where an attacker replicates the key or is the gateway:");
                withinLimits.forEach((r, n) -> b.append(' ').append(r.name()).append('=').append(n));
            }
            return b.toString();
        }
    }

    /** Rule 8: the watches judged at the end (they lived to it) and those replaced when their gateway went away. */
    public record Watches(int judged, long replaced) {
        public static final Watches NONE = new Watches(0, 0);

        String line() {
            return this.equals(NONE) ? "" : ", watches judged " + judged + " (replaced " + replaced + ")";
        }
    }

    /**
     * What the checker counted and did not assert: misses excused, by reason; acknowledged puts lost to disk faults
     * (every copy destroyed: with a power loss among the faults, or whole disks only); puts acknowledged when a disk
     * fault had destroyed copies they needed for W; puts acknowledged short of W because liars acknowledged copies
     * they never stored (each liar's ack is at most one copy short: docs/security.md); puts and removes that failed
     * after a liar dropped them (denial, which attribution cannot stop: docs/security.md); removes acknowledged on W
     * liars' acks
     * alone (no tombstone written: undone, as below); acknowledged removes undone (disk faults
     * destroyed every
     * tombstone: the value may come back); removed values returned by a get that may have read a node the
     * tombstone had not reached yet, before it could have been told or after (and the longest time since it could
     * have been); values missing from
     * the final read after a clock fault on a holder; values served late by nodes whose clocks were off by more than S.
     */
    public record Counted(EnumMap<Excuse, Long> excused, long lostToPowerLoss, long lostToDiskLoss,
                          long ackedAfterDestroyed, long ackedOnLiarsWord, long deniedByLiars,
                          long removesOnLiarsWord, long removesUndone, long removedReturnedCutOff,
                          long removedReturnedUntold,
                          long removedReturnedUntoldMaxMillis,
                          long finalMissesAfterClockFault, long servedLateBeyondS) {

        /** As the summary prints it: {@code partition N, heal-settling N, copy-in-flight N}. */
        public String excusedLine() {
            return Excuse.line(excused);
        }
    }

    /**
     * The end of the run: keys the final read read and the acknowledged values it checked; values the copies rule
     * checked at its deadline, and when (ms after the faults stopped) every one of them was last seen short of its k
     * replicas (-1: never short; it was asserted back by the deadline).
     */
    public record Ends(int keysRead, long valuesChecked, long copiesChecked, long lastShortMillis) {
    }

    /** Gets of consistency one served by a replica: all, merged with a second replica (view unsettled, store fault). */
    public record SecondReads(long served, long unsettled, long storeFault) {
    }

    /** Whether an asserted rule was broken ({@link Rule#asserted()}). */
    public boolean failed() {
        return violations.entrySet().stream().anyMatch(e -> e.getKey().asserted() && e.getValue() > 0);
    }

    public int count(Rule rule) {
        return violations.getOrDefault(rule, 0);
    }

    /**
     * Violations of {@code rule} where no attacker's node replicated the key when found or was the get's gateway (with
     * liars): what the defences must hold at 0.
     */
    public long beyondTheLimits(Rule rule) {
        return count(rule) - lies.withinLimits().getOrDefault(rule, 0L);
    }

    /** The trace hash and event count, as a replay prints them. */
    public String trace() {
        return String.format(Locale.ROOT, "%016x/%d", traceHash, events);
    }

    /** One line: the seed, PASS or the rules broken, the trace. */
    public String summaryLine() {
        StringBuilder broken = new StringBuilder();
        for (Rule r : Rule.values()) {
            if (count(r) > 0) {
                broken.append(broken.length() == 0 ? "" : ", ").append(r.name()).append('=').append(count(r));
            }
        }
        return "seed " + config.seed() + ": " + (failed() ? "FAIL" : "pass") + (broken.length() == 0 ? "" : " " + broken) + " (trace " + trace()
                + ", ops " + ops + ", excused: " + counted.excusedLine() + "; lost " + counted.lostToPowerLoss()
                + " + " + counted.lostToDiskLoss() + ", final read " + ends.keysRead() + " keys/" + ends.valuesChecked()
                + " values, copies at k " + ends.copiesChecked() + (ends.lastShortMillis() < 0 ? ""
                : " (short until +" + ends.lastShortMillis() / 1000.0 + " s)") + registers.line() + watches.line()
                + lies.line() + ")";
    }
}
