package io.rattan.sim.faults;

/**
 * How long faults go on. {@link #BUDGET}: faults for the first 60% of the run, then everything heals (crashed nodes
 * restart, partitions close, clocks are set right, disks freed), and after a settling time every operation must
 * complete: safety and liveness. {@link #NOBUDGET}: faults until the end; safety only. {@link #NONE}: no fault at
 * all, every rule checked, liveness from the settling time on: the control that shows the checker reports nothing
 * when nothing goes wrong.
 */
public enum Profile {
    BUDGET, NOBUDGET, NONE;

    /** As the command line spells it. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
