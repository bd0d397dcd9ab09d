package io.rattan.sim.faults;

/** The faults the simulator injects; {@link FaultInjector} says how each is drawn and healed. */
public enum FaultKind {
    CRASH_DISK_KEPT("crash, disk kept"),
    CRASH_DISK_LOST("crash, disk lost"),
    POWER_LOSS("power loss (unsynced writes lost)"),
    RESTART("restart"),
    PARTITION_HALVES("partition: two halves"),
    PARTITION_ISOLATE("partition: one node isolated"),
    PARTITION_ONE_WAY("partition: one way only"),
    DROP("message drop 1-10%"),
    DUPLICATE("message duplication"),
    REORDER("message reordering"),
    DELAY("extra delay"),
    CLOCK_STEP("clock step +-1 h"),
    CLOCK_SKEW("clock skew +-30 s"),
    DISK_FULL("full disk");

    private final String label;

    FaultKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
