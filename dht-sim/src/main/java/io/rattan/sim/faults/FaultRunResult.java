package io.rattan.sim.faults;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;

/**
 * What one fault run did and found.
 *
 * @param config                the run (its {@link FaultRunConfig#replayCommand()} replays it)
 * @param traceHash             the network's trace hash at the end: a replay must give the same
 * @param events                events the world ran
 * @param fired                 faults injected, by kind
 * @param violations            broken rules, by rule (every rule present, 0 when none)
 * @param firstViolations       the first few, with detail
 * @param missesDuringPartition acknowledged puts missing from a get that overlapped a partition: counted, not asserted
 * @param missesAtHeal          acknowledged puts missing from a get that started in a heal's first second
 *                              ({@link Checker#HEAL_MOMENT_NANOS}): counted, not asserted
 * @param missesInFlight        acknowledged puts missing from a get that raced their copies to its answerer
 *                              ({@link Checker#IN_FLIGHT_NANOS}): counted, not asserted
 * @param servedLateBeyondS     values served past expiry + S by nodes whose clock error exceeded S: counted only
 * @param ops                   client operations issued
 * @param escapedExceptions     exceptions thrown out of a node's tasks or its handleClient (full disks)
 * @param writesRefused         writes a full disk refused
 * @param rule1Causes           rule-1 misses (not the clock-tainted ones) by diagnosed cause ({@link GetDiagnosis})
 * @param oneReads              gets of consistency one served by a replica, and how many of them read a second replica
 *                              because the view was unsettled or the store in a fault
 */
public record FaultRunResult(FaultRunConfig config, long traceHash, long events, EnumMap<FaultKind, Integer> fired,
                             EnumMap<Rule, Integer> violations, List<Violation> firstViolations,
                             long missesDuringPartition, long missesAtHeal, long missesInFlight,
                             long servedLateBeyondS, long ops, long escapedExceptions, long writesRefused,
                             java.util.Map<String, Integer> rule1Causes, SecondReads oneReads) {

    /** Gets of consistency one served by a replica: all, merged with a second replica (view unsettled, store fault). */
    public record SecondReads(long served, long unsettled, long storeFault) {
    }

    public boolean failed() {
        return violations.values().stream().anyMatch(n -> n > 0);
    }

    public int count(Rule rule) {
        return violations.getOrDefault(rule, 0);
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
        return "seed " + config.seed() + ": " + (failed() ? "FAIL " + broken : "pass") + " (trace " + trace()
                + ", ops " + ops + ", partition misses " + missesDuringPartition + " + " + missesAtHeal
                + " at the heal, copies in flight " + missesInFlight + ", late beyond S " + servedLateBeyondS + ")";
    }
}
