package io.rattan.sim.faults;

import io.rattan.core.testing.PlantedBugs;

/** The bugs the checker must catch (issue 16), each a test-only switch of {@link PlantedBugs}. */
public enum PlantedBug {
    NONE(PlantedBugs.NONE, null),
    ACK_BELOW_W(new PlantedBugs(true, false, false), Rule.W_COPIES_AT_ACK),
    TOMBSTONE_RULE_OFF(new PlantedBugs(false, true, false), Rule.REMOVED_RETURNED),
    EXTRA_SECOND_ON_COPY(new PlantedBugs(false, false, true), Rule.SERVED_PAST_EXPIRY);

    private final PlantedBugs switches;
    private final Rule caughtBy;

    PlantedBug(PlantedBugs switches, Rule caughtBy) {
        this.switches = switches;
        this.caughtBy = caughtBy;
    }

    public PlantedBugs switches() {
        return switches;
    }

    /** The rule that must catch it (null for {@link #NONE}). */
    public Rule caughtBy() {
        return caughtBy;
    }

    /** As the command line spells it. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
