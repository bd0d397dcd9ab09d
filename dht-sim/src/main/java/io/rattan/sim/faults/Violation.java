package io.rattan.sim.faults;

/**
 * One broken rule: when (virtual seconds), what, and which faults were in force then (a hint for whoever replays it).
 */
public record Violation(Rule rule, double atSeconds, String detail, String faultsInForce) {

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "rule %s at %.3f s: %s: %s [faults: %s]", rule.number(),
                atSeconds, rule.description(), detail, faultsInForce);
    }
}
