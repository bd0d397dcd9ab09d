package io.rattan.sim.faults;

/**
 * One fault run, all of it decided by these fields: the same config gives the same run, event for event.
 *
 * @param seed    the seed of everything: the world, the workload and the fault plan (each its own split)
 * @param nodes   nodes in the world
 * @param minutes virtual minutes of workload after the nodes joined
 * @param profile whether faults stop (and liveness is checked) or go on to the end
 * @param bug     a planted bug, or {@link PlantedBug#NONE}
 */
public record FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug) {

    public FaultRunConfig {
        if (nodes < 8 || nodes > 500) {
            throw new IllegalArgumentException("nodes must be 8..500, got " + nodes);
        }
        if (minutes < 2 || minutes > 600) {
            throw new IllegalArgumentException("minutes must be 2..600, got " + minutes);
        }
        if (profile == null || bug == null) {
            throw new IllegalArgumentException("profile and bug must be given");
        }
    }

    /** The command that replays exactly this run. */
    public String replayCommand() {
        return "./rattan sim faults --seed " + seed + " --nodes " + nodes + " --minutes " + minutes + " --profile "
                + profile.flag() + (bug == PlantedBug.NONE ? "" : " --planted-bug " + bug.flag());
    }
}
