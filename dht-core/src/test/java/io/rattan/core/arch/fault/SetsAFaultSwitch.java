package io.rattan.core.arch.fault;

import io.rattan.core.testing.PlantedBugs;

/** Breaks {@code ModuleRules.faultSwitchesOnlyIn} once: a class outside the fault simulator that plants a bug. */
public final class SetsAFaultSwitch {

    private SetsAFaultSwitch() {
    }

    public static PlantedBugs planted() {
        return PlantedBugs.of(PlantedBugs.Bug.PUT_ACK_BELOW_QUORUM);
    }
}
