package io.rattan.sim.faults;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A diagnostic of how the ring heals once a budget run's faults stop (docs/testing.md, rule 4): every second of
 * virtual time from the stop to the end, it compares each serving node's leaf set with the true one (the
 * {@code leafSetHalf} nearest serving nodes on each side) and counts the rings the leaf sets form (connected parts of
 * the graph of leaf-set links). It only reads the nodes' status, sends nothing; but its timer events count in the
 * run's event total, so it is off unless asked for ({@code -Drattan.sim.heal=true}), and a run with it has another
 * trace's event count.
 */
final class HealMonitor {

    private static final long SECOND = 1_000_000_000L;

    private final VirtualWorld world;
    private final long startNanos;
    private final long stopNanos;
    private final long endNanos;
    private final int half;
    private final BooleanSupplier partitioned;
    private final List<int[]> samples = new ArrayList<>();
    private final StringBuilder firstWrong = new StringBuilder();

    /** Samples from {@code startNanos} (the stop, or earlier for a timeline of the whole run) to the end. */
    HealMonitor(VirtualWorld world, BooleanSupplier partitioned, long startNanos, long stopNanos, long endNanos) {
        this.world = world;
        this.startNanos = startNanos;
        this.stopNanos = stopNanos;
        this.endNanos = endNanos;
        this.half = world.config().leafSetHalf();
        this.partitioned = partitioned;
    }

    /** Whether the run was asked for this diagnostic. */
    static boolean wanted() {
        String v = System.getProperty("rattan.sim.heal", "");
        return v.equals("true") || v.equals("timeline");
    }

    /**
     * Each second whose counts differ from the second before: {@code +s wrong/rings} (seconds from the stop), marked
     * {@code P} while a partition is in force.
     */
    String timeline() {
        StringBuilder out = new StringBuilder();
        int[] before = null;
        for (int[] s : samples) {
            if (before == null || s[1] != before[1] || s[2] != before[2] || s[4] != before[4]) {
                out.append(s[0] < 0 ? " " : " +").append(s[0]).append("s ").append(s[1]).append('/').append(s[2])
                        .append(s[4] == 1 ? "P" : "");
            }
            before = s;
        }
        return out.toString();
    }

    void start() {
        world.scheduler().schedule(startNanos - world.scheduler().nanoTime(), this::sample);
    }

    private void sample() {
        List<Integer> serving = world.servingIndexes();
        List<Contact> ring = new ArrayList<>();
        Map<Id, Integer> indexOf = new HashMap<>();
        for (int i : serving) {
            ring.add(world.contact(i));
            indexOf.put(world.contact(i).id(), i);
        }
        ring.sort(Comparator.comparing(Contact::id));
        int wrong = 0;
        int[] parent = new int[world.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        for (int pos = 0; pos < ring.size(); pos++) {
            int i = indexOf.get(ring.get(pos).id());
            Set<Id> truth = trueLeaves(ring, pos);
            Set<Id> seen = new HashSet<>();
            for (Contact c : world.node(i).status().leafSet()) {
                seen.add(c.id());
                Integer j = indexOf.get(c.id());
                if (j != null) {
                    union(parent, i, j);
                }
            }
            if (!seen.equals(truth)) {
                wrong++;
                if (firstWrong.length() == 0 && world.scheduler().nanoTime() >= stopNanos + FaultRun.SETTLE_NANOS) {
                    Set<Id> missing = new HashSet<>(truth);
                    missing.removeAll(seen);
                    Set<Id> extra = new HashSet<>(seen);
                    extra.removeAll(truth);
                    firstWrong.append("node ").append(i).append(" misses ").append(names(missing, indexOf))
                            .append(", holds ").append(names(extra, indexOf)).append(" beyond the true ring");
                }
            }
        }
        Set<Integer> roots = new HashSet<>();
        for (int i : serving) {
            roots.add(find(parent, i));
        }
        long t = world.scheduler().nanoTime();
        samples.add(new int[] {(int) Math.floorDiv(t - stopNanos, SECOND), wrong, roots.size(), serving.size(),
            partitioned.getAsBoolean() ? 1 : 0});
        if (t + SECOND < endNanos) {
            world.scheduler().schedule(SECOND, this::sample);
        }
    }

    private Set<Id> trueLeaves(List<Contact> ring, int pos) {
        Set<Id> out = new HashSet<>();
        int n = ring.size();
        for (int d = 1; d <= half && d < n; d++) {
            out.add(ring.get((pos + d) % n).id());
            out.add(ring.get(((pos - d) % n + n) % n).id());
        }
        return out;
    }

    private static List<Integer> names(Set<Id> ids, Map<Id, Integer> indexOf) {
        List<Integer> out = new ArrayList<>();
        for (Id id : ids) {
            out.add(indexOf.getOrDefault(id, -1));
        }
        out.sort(Integer::compare);
        return out;
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    private static void union(int[] parent, int a, int b) {
        parent[find(parent, a)] = find(parent, b);
    }

    /**
     * One line: wrong leaf sets and rings at the stop and 30 s later, the last second any leaf set was wrong (the
     * convergence time), the most rings after the stop, and the first wrong leaf set in the liveness window.
     */
    String summary(long seed) {
        int lastWrong = -1;
        int maxRings = 0;
        int maxRingsAfterSettle = 0;
        List<int[]> after = samples.stream().filter(s -> s[0] >= 0).toList();
        int[] atStop = after.isEmpty() ? new int[5] : after.get(0);
        int[] atSettle = atStop;
        long settle = FaultRun.SETTLE_NANOS / SECOND;
        for (int[] s : after) {
            if (s[1] > 0) {
                lastWrong = s[0];
            }
            maxRings = Math.max(maxRings, s[2]);
            if (s[0] <= settle) {
                atSettle = s;
            } else {
                maxRingsAfterSettle = Math.max(maxRingsAfterSettle, s[2]);
            }
        }
        int[] last = after.isEmpty() ? new int[5] : after.get(after.size() - 1);
        return String.format(Locale.ROOT, "heal seed %d: wrong leaf sets/rings/serving at stop %d/%d/%d, at +%ds "
                        + "%d/%d/%d, at end +%ds %d/%d/%d; %s; most rings %d (%d after +%ds)%s",
                seed, atStop[1], atStop[2], atStop[3], settle, atSettle[1], atSettle[2], atSettle[3], last[0],
                last[1], last[2], last[3],
                lastWrong < 0 ? "right from the stop" : lastWrong >= last[0] ? "never converged"
                        : "converged at +" + (lastWrong + 1) + "s",
                maxRings, maxRingsAfterSettle, settle, firstWrong.length() == 0 ? "" : "; first wrong: " + firstWrong);
    }
}
