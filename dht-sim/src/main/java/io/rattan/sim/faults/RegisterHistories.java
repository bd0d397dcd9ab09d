package io.rattan.sim.faults;

import io.rattan.api.Id;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each register key's history (its compare-and-swaps and quorum reads, {@link RegisterWorkload}) and whether its root
 * stayed put while it ran, judged at the end of the run by {@link LinearizabilityCheck}. A key whose root (its closest
 * live node) changed, or that had any partition in force between its first and last operation, is judged apart: the
 * guarantee is stated for a root that does not change (docs/http-api.md, "Owned values"), so its violations are
 * counted and reported, not asserted. A check that exhausts its step budget counts as a violation. Single-threaded,
 * on the world's thread.
 */
final class RegisterHistories {

    /** Steps the check may take per key: orders of magnitude above what a 100-operation history needs. */
    static final long STEP_BUDGET = 5_000_000L;
    private static final long ROOT_SAMPLE_NANOS = 250_000_000L;

    private final VirtualWorld world;
    private final GetDiagnosis diagnosis;
    private final PartitionHistory partitions;
    private final Map<Id, List<RegisterOp>> ops = new LinkedHashMap<>();
    private final Map<Id, Integer> root = new LinkedHashMap<>();
    /** When each key's root changed, as sampled. */
    private final Map<Id, List<Long>> rootChanges = new LinkedHashMap<>();
    private final Map<Id, long[]> span = new LinkedHashMap<>();
    private int refusedOutright;

    RegisterHistories(VirtualWorld world, GetDiagnosis diagnosis, PartitionHistory partitions) {
        this.world = world;
        this.diagnosis = diagnosis;
        this.partitions = partitions;
    }

    /** Starts watching {@code keys}' roots, sampled every 250 ms of virtual time and at every answer. */
    void track(List<Id> keys) {
        for (Id key : keys) {
            ops.put(key, new ArrayList<>());
            rootChanges.put(key, new ArrayList<>());
            span.put(key, new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        }
        sampleRoots();
    }

    private void sampleRoots() {
        for (Id key : ops.keySet()) {
            sampleRoot(key);
        }
        world.scheduler().schedule(ROOT_SAMPLE_NANOS, this::sampleRoots);
    }

    private void sampleRoot(Id key) {
        List<Integer> replicas = diagnosis.trueReplicas(key);
        Integer now = replicas.isEmpty() ? -1 : replicas.get(0);
        Integer before = root.put(key, now);
        if (before != null && !before.equals(now)) {
            rootChanges.get(key).add(world.scheduler().nanoTime());
        }
    }

    /** An operation of {@code key} was answered. */
    void add(Id key, RegisterOp op) {
        sampleRoot(key);
        // A change between two samples is seen at the later one: judged against [first call, last answer].
        ops.get(key).add(op);
        long[] s = span.get(key);
        s[0] = Math.min(s[0], op.invokeNanos());
        s[1] = Math.max(s[1], world.scheduler().nanoTime());
    }

    /** A swap refused before anything was written (403, 409, 400), or never sent: not part of any history. */
    void refusedOutright(Id key) {
        refusedOutright++;
    }

    /**
     * Judges every key's history: a violation (or a check out of steps) of a key whose root stayed put is a violation
     * of {@link Rule#REGISTER_NOT_LINEARIZABLE}; the others are counted in the summary.
     */
    Summary judge(CheckerTally tally) {
        int swapped = 0;
        int refused = 0;
        int unknown = 0;
        int reads = 0;
        int[] keys = new int[2];
        int[] violations = new int[2];
        for (Map.Entry<Id, List<RegisterOp>> e : ops.entrySet()) {
            Id key = e.getKey();
            for (RegisterOp op : e.getValue()) {
                switch (op.kind()) {
                    case READ -> reads++;
                    case SWAP -> {
                        switch (op.outcome()) {
                            case SWAPPED -> swapped++;
                            case REFUSED -> refused++;
                            case UNKNOWN -> unknown++;
                        }
                    }
                }
            }
            long[] s = span.get(key);
            // 0: a partition was in force while the history ran; 1: no partition, but the root changed.
            boolean rootChanged = rootChanges.get(key).stream().anyMatch(t -> t >= s[0] && t <= s[1]);
            int unstable = s[0] <= s[1] && partitions.anyInForce(s[0], s[1]) ? 0 : rootChanged ? 1 : -1;
            if (unstable >= 0) {
                keys[unstable]++;
            }
            LinearizabilityCheck.Verdict v = LinearizabilityCheck.check(e.getValue(), null, STEP_BUDGET);
            if (v.kind() == LinearizabilityCheck.Verdict.Kind.LINEARIZABLE) {
                continue;
            }
            tally.violation(unstable < 0 ? Rule.REGISTER_NOT_LINEARIZABLE : Rule.REGISTER_NOT_LINEARIZABLE_ROOT_CHANGED,
                    "key " + key.shortHex() + (unstable == 0 ? " (partition)" : unstable == 1 ? " (root changed)" : "")
                            + ", " + e.getValue().size() + " operations: " + v.explanation());
            if (unstable >= 0) {
                violations[unstable]++;
            }
        }
        return new Summary(ops.size(), swapped, refused, unknown, reads, refusedOutright, keys[1], violations[1],
                keys[0], violations[0]);
    }

    /**
     * What the register check saw: keys, swaps by outcome, quorum reads answered, swaps refused before any write;
     * keys whose root changed with no partition in force, and keys that had a partition, and how many of each were
     * not linearizable (reported, not asserted).
     */
    record Summary(int keys, int swapped, int refused, int unknown, int reads, int refusedOutright,
                   int keysRootChanged, int violationsRootChanged, int keysPartitioned, int violationsPartitioned) {

        static final Summary NONE = new Summary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** Both summaries' counts added: a command's totals over its seeds. */
        Summary plus(Summary o) {
            return new Summary(keys + o.keys, swapped + o.swapped, refused + o.refused, unknown + o.unknown,
                    reads + o.reads, refusedOutright + o.refusedOutright, keysRootChanged + o.keysRootChanged,
                    violationsRootChanged + o.violationsRootChanged, keysPartitioned + o.keysPartitioned,
                    violationsPartitioned + o.violationsPartitioned);
        }

        /** As a run's summary line ends: empty when no register was checked. */
        String line() {
            return keys == 0 ? "" : String.format(java.util.Locale.ROOT, "; registers %d keys: %d swapped, %d "
                    + "refused, %d unknown, %d reads, %d refused before a write or not sent; judged apart: %d keys whose root "
                    + "changed (%d not linearizable), %d with a partition (%d not linearizable)", keys, swapped,
                    refused, unknown, reads, refusedOutright, keysRootChanged, violationsRootChanged, keysPartitioned,
                    violationsPartitioned);
        }
    }
}
