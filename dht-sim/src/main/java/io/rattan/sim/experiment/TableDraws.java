package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The random choices of an {@link OpenDhtTable} run, in the order the run makes them from its seed's one stream:
 * the values put (key, value, the gateway of each attempt), the one-hop warm-up's start per host, then every round's
 * time, nodes, key and mode order. {@code ./rattan bench table} draws from the same methods in the same order, so
 * that a run on real processes with the same seed puts the same values and plays the same rounds.
 */
public final class TableDraws {

    private TableDraws() {
    }

    /** One round: when it starts (after the get phase's start), its nodes (the client's own first), key, mode order. */
    public record Round(long atNanos, int[] nodes, int key, int[] order) {
    }

    /** A one-hop warm-up client's start, after the warm-up's, and the seed of its own key draws. */
    public record WarmUpStart(long offsetNanos, long seed) {
    }

    /** The key of the next value put. */
    public static Id key(SplittableRandom random) {
        return Id.random(random);
    }

    /** The {@code i}-th value put (counting attempts at keys replaced after failing too). */
    public static Bytes value(int i, SplittableRandom random) {
        return Bytes.utf8("value-" + i + "-" + random.nextLong());
    }

    /** The gateway of one put attempt, among the first {@code nodes}. */
    public static int putGateway(SplittableRandom random, int nodes) {
        return random.nextInt(nodes);
    }

    /** Each host's one-hop warm-up client start (within a minute) and seed; drawn only when a mode is one-hop. */
    public static List<WarmUpStart> warmUpStarts(SplittableRandom random, int hosts) {
        List<WarmUpStart> starts = new ArrayList<>(hosts);
        for (int h = 0; h < hosts; h++) {
            long offset = (long) (random.nextDouble() * 60 * 1_000_000_000L);
            starts.add(new WarmUpStart(offset, random.nextLong()));
        }
        return starts;
    }

    /**
     * Every round of the get phase: Poisson arrivals at {@code rounds} per {@code getPhaseNanos}, each with
     * {@code min(nodesPerRound, nodes)} distinct random nodes, a random key among {@code keys} and the {@code modes}
     * in a fresh random order.
     */
    public static List<Round> rounds(SplittableRandom random, int rounds, long getPhaseNanos, int nodes,
                                     int nodesPerRound, int keys, int modes) {
        double meanGap = (double) getPhaseNanos / rounds;
        long at = 0;
        List<Round> out = new ArrayList<>(rounds);
        for (int round = 0; round < rounds; round++) {
            at += (long) (-Math.log(1 - random.nextDouble()) * meanGap);
            int[] drawn = distinctNodes(random, Math.min(nodesPerRound, nodes), nodes);
            int k = random.nextInt(keys);
            out.add(new Round(at, drawn, k, shuffledModes(random, modes)));
        }
        return out;
    }

    /** How many nodes a round of {@code modes} needs: the most copies any of them may send through gateways. */
    public static int nodesPerRound(List<OpenDhtTable.Mode> modes) {
        return modes.stream().mapToInt(OpenDhtTable.Mode::copiesMax).max().orElse(1);
    }

    private static int[] distinctNodes(SplittableRandom random, int n, int nodes) {
        int[] picked = new int[n];
        for (int i = 0; i < n; i++) {
            boolean fresh;
            do {
                picked[i] = random.nextInt(nodes);
                fresh = true;
                for (int j = 0; j < i; j++) {
                    fresh &= picked[j] != picked[i];
                }
            } while (!fresh);
        }
        return picked;
    }

    private static int[] shuffledModes(SplittableRandom random, int m) {
        int[] order = new int[m];
        for (int i = 0; i < m; i++) {
            order[i] = i;
        }
        for (int i = m - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
