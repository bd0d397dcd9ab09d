package io.rattan.sim.faults;

/**
 * How long faults go on. {@link #BUDGET}: faults for the first 60% of the run, then everything heals (crashed nodes
 * restart, partitions close, clocks are set right, disks freed), and after a settling time every operation must
 * complete: safety and liveness. {@link #NOBUDGET}: faults until the end; safety only.
 */
public enum Profile {
    BUDGET, NOBUDGET;

    /** As the command line spells it. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
