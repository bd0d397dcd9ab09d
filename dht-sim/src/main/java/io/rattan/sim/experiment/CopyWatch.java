package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many live copies each value has under churn, once a virtual second: the share of samples with fewer than k
 * copies, the fewest seen, and how long a value stays short of k before repair (and the nodes' failure detection)
 * brings it back. A value that falls to 0 is lost; one that falls to 1 was a crash away from it. Only the
 * {@link #NEAR} live nodes on each side of a key are read (where its replicas and any copy repair makes lie), so a
 * sample costs a few thousand store reads, not one per node and value.
 */
final class CopyWatch {

    private static final long SECOND = 1_000_000_000L;
    /** Live nodes read on each side of a key: k replicas and some beyond, where copies of a changing ring sit. */
    private static final int NEAR = 8;

    /** One phase's figures; {@code shortSeconds} are the lengths of the spells under k copies that ended. */
    record Stats(long samples, long[] samplesByCopies, List<Double> shortSeconds, int k) {
        double shortShare() {
            long below = 0;
            for (int c = 0; c < k; c++) {
                below += samplesByCopies[c];
            }
            return samples == 0 ? 0 : (double) below / samples;
        }

        double shortQuantile(double q) {
            if (shortSeconds.isEmpty()) {
                return 0;
            }
            List<Double> sorted = new ArrayList<>(shortSeconds);
            Collections.sort(sorted);
            return sorted.get(Math.min(sorted.size() - 1, (int) (q * sorted.size())));
        }

        int fewest() {
            for (int c = 0; c < samplesByCopies.length; c++) {
                if (samplesByCopies[c] > 0) {
                    return c;
                }
            }
            return k;
        }
    }

    private final VirtualWorld world;
    private final List<Id> keys;
    private final List<Bytes> hashes;
    private final int k;
    private final long[] shortSince;
    private long samples;
    private long[] byCopies;
    private List<Double> shortSeconds = new ArrayList<>();

    CopyWatch(VirtualWorld world, List<Id> keys, List<Bytes> hashes, int k) {
        this.world = world;
        this.keys = keys;
        this.hashes = hashes;
        this.k = k;
        this.shortSince = new long[keys.size()];
        Arrays.fill(shortSince, -1);
        this.byCopies = new long[k + 1];
    }

    /** Samples once a second for {@code duration} nanoseconds of virtual time from now. */
    void schedule(long duration) {
        for (long t = SECOND; t <= duration; t += SECOND) {
            world.scheduler().schedule(t, this::sample);
        }
    }

    /** This phase's figures; the next phase counts afresh (spells still open carry over). */
    Stats take() {
        Stats s = new Stats(samples, byCopies, shortSeconds, k);
        samples = 0;
        byCopies = new long[k + 1];
        shortSeconds = new ArrayList<>();
        return s;
    }

    private void sample() {
        TreeMap<Id, Integer> ring = new TreeMap<>();
        for (int i : world.liveIndexes()) {
            ring.put(world.contact(i).id(), i);
        }
        if (ring.isEmpty()) {
            return;
        }
        long now = world.scheduler().nanoTime();
        for (int v = 0; v < keys.size(); v++) {
            int copies = Math.min(k, copies(ring, keys.get(v), hashes.get(v)));
            samples++;
            byCopies[copies]++;
            if (copies < k && shortSince[v] < 0) {
                shortSince[v] = now;
            } else if (copies >= k && shortSince[v] >= 0) {
                shortSeconds.add((now - shortSince[v]) / 1e9);
                shortSince[v] = -1;
            }
        }
    }

    private int copies(TreeMap<Id, Integer> ring, Id key, Bytes hash) {
        int n = Math.min(NEAR, ring.size());
        int held = 0;
        Map.Entry<Id, Integer> up = ring.ceilingEntry(key);
        Map.Entry<Id, Integer> down = ring.lowerEntry(key);
        List<Integer> seen = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            up = up == null ? ring.firstEntry() : up;
            down = down == null ? ring.lastEntry() : down;
            if (!seen.contains(up.getValue())) {
                seen.add(up.getValue());
            }
            if (!seen.contains(down.getValue())) {
                seen.add(down.getValue());
            }
            up = ring.higherEntry(up.getKey());
            down = ring.lowerEntry(down.getKey());
        }
        for (int i : seen) {
            if (world.store(i).read(key, hash).isPresent()) {
                held++;
            }
        }
        return held;
    }
}
