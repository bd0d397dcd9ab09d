package io.rattan.sim.faults;

/**
 * One fault run, all of it decided by these fields: the same config gives the same run, event for event.
 *
 * @param seed    the seed of everything: the world, the workload and the fault plan (each its own split)
 * @param nodes   nodes in the world
 * @param minutes virtual minutes of workload after the nodes joined
 * @param profile whether faults stop (and liveness is checked) or go on to the end
 * @param bug     a planted bug, or {@link PlantedBug#NONE}
 * @param fsync     the nodes run with {@code --fsync}: a write is acknowledged once its sync returned
 * @param registers owned values used as registers too, and their histories checked for linearizability (rule 7)
 * @param watches   clients watch some keys, and every put acknowledged after a watch's READY must reach it (rule 8)
 * @param leafSetHalf the nodes' leaf set, per side ({@link #LEAF_SET_HALF} by default; production's is 8)
 * @param liars     the nodes that lie, and how ({@link Liars#NONE} by default)
 */
public record FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug, boolean fsync,
                             boolean registers, boolean watches, int leafSetHalf, Liars liars) {

    /** The leaf set, per side, of every run unless told otherwise (with k = 4: replica sets near its edge). */
    public static final int LEAF_SET_HALF = 3;

    /** With the default leaf set, and no liar. */
    public FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug, boolean fsync,
                          boolean registers, boolean watches) {
        this(seed, nodes, minutes, profile, bug, fsync, registers, watches, LEAF_SET_HALF, Liars.NONE);
    }

    /** Without watches. */
    public FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug, boolean fsync,
                          boolean registers) {
        this(seed, nodes, minutes, profile, bug, fsync, registers, false);
    }

    /** Without {@code --fsync}. */
    public FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug) {
        this(seed, nodes, minutes, profile, bug, false);
    }

    /** Without registers. */
    public FaultRunConfig(long seed, int nodes, int minutes, Profile profile, PlantedBug bug, boolean fsync) {
        this(seed, nodes, minutes, profile, bug, fsync, false);
    }

    public FaultRunConfig {
        if (nodes < 8 || nodes > 500) {
            throw new IllegalArgumentException("nodes must be 8..500, got " + nodes);
        }
        if (minutes < 2 || minutes > 600) {
            throw new IllegalArgumentException("minutes must be 2..600, got " + minutes);
        }
        if (leafSetHalf < 3 || leafSetHalf > 16) {
            throw new IllegalArgumentException("the leaf set's half must be 3..16 (k = 4 needs 3), got "
                    + leafSetHalf);
        }
        if (profile == null || bug == null || liars == null) {
            throw new IllegalArgumentException("profile, bug and liars must be given");
        }
        if (bug.caughtBy() == Rule.REGISTER_NOT_LINEARIZABLE && !registers) {
            throw new IllegalArgumentException("the planted bug " + bug.flag() + " shows in registers only: "
                    + "add --registers");
        }
        if (bug.caughtBy() == Rule.SECRET_TO_LIAR && !liars.attacks().contains(Attack.SECRET_HARVEST)) {
            throw new IllegalArgumentException("the planted bug " + bug.flag() + " shows with liars only: add --liars F "
                    + "--attacks secret-harvest");
        }
        int onOneHost = SlotCapture.hostSize(liars, nodes);
        if (liars.attacks().contains(Attack.SLOT_CAPTURE) && onOneHost > nodes / 2) {
            throw new IllegalArgumentException("slot-capture puts each liar and " + SlotCapture.SYBILS_PER_LIAR
                    + " more ids on one host: " + onOneHost + " of " + nodes + " nodes, more than half; lower --liars "
                    + "or add --nodes");
        }
        if (bug.caughtBy() == Rule.WATCH_MISSED && !watches) {
            throw new IllegalArgumentException("the planted bug " + bug.flag() + " shows in watches only: add --watches");
        }
    }

    /**
     * Seed {@code seed} of the CI profile (FaultSimulatorCiTest's): even seeds with a budget, odd ones without;
     * {@code --fsync} on seeds 2, 3, 6, 7, ... (half of each profile), or on all with {@code fsync}.
     */
    public static FaultRunConfig ci(long seed, int nodes, int minutes, PlantedBug bug, boolean fsync) {
        return ci(seed, nodes, minutes, bug, fsync, false);
    }

    /** As {@link #ci(long, int, int, PlantedBug, boolean)}, with registers or not. */
    public static FaultRunConfig ci(long seed, int nodes, int minutes, PlantedBug bug, boolean fsync,
                                    boolean registers) {
        return ci(seed, nodes, minutes, bug, fsync, registers, false);
    }

    /** As {@link #ci(long, int, int, PlantedBug, boolean)}, with registers and watches or not. */
    public static FaultRunConfig ci(long seed, int nodes, int minutes, PlantedBug bug, boolean fsync,
                                    boolean registers, boolean watches) {
        return new FaultRunConfig(seed, nodes, minutes, seed % 2 == 0 ? Profile.BUDGET : Profile.NOBUDGET, bug,
                fsync || (seed / 2) % 2 == 1, registers, watches);
    }

    /** This run with a leaf set of {@code half} per side. */
    public FaultRunConfig withLeafSetHalf(int half) {
        return new FaultRunConfig(seed, nodes, minutes, profile, bug, fsync, registers, watches, half, liars);
    }

    /** This run with {@code liars} among its nodes. */
    public FaultRunConfig withLiars(Liars liars) {
        return new FaultRunConfig(seed, nodes, minutes, profile, bug, fsync, registers, watches, leafSetHalf, liars);
    }

    /** The command that replays exactly this run. */
    public String replayCommand() {
        return "./rattan sim faults --seed " + seed + " --nodes " + nodes + " --minutes " + minutes + " --profile "
                + profile.flag() + (fsync ? " --fsync" : "") + (registers ? " --registers" : "")
                + (watches ? " --watches" : "")
                + (leafSetHalf == LEAF_SET_HALF ? "" : " --leaf-set-half " + leafSetHalf) + liars.flags()
                + (bug == PlantedBug.NONE ? "" : " --planted-bug " + bug.flag());
    }
}
