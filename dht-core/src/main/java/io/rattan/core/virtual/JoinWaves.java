package io.rattan.core.virtual;

import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Adds nodes to a {@link VirtualWorld} in waves that join at the same time: see
 * {@link VirtualWorld#addNodesInWaves(int, int, VirtualWorld.WaveListener)}. Single-threaded, like the world.
 */
final class JoinWaves {

    private static final long SECOND = 1_000_000_000L;
    private static final long WAVE_MAX_NANOS = 120 * SECOND;
    /** How often a wave that has not fully joined counts its joined nodes. */
    private static final long WAVE_CHECK_NANOS = SECOND / 4;

    private final VirtualWorld world;
    private final NodeSlots slots;
    private final NodeBooter booter;
    private final VirtualScheduler scheduler;
    private final SplittableRandom random;

    JoinWaves(VirtualWorld world, NodeSlots slots, NodeBooter booter, SplittableRandom random) {
        this.world = world;
        this.slots = slots;
        this.booter = booter;
        this.scheduler = world.scheduler();
        this.random = random;
    }

    /** Adds {@code n} nodes in waves of at most {@code maxWave}; returns how many had not joined when theirs ended. */
    int add(int n, int maxWave, VirtualWorld.WaveListener listener) {
        if (maxWave < 1) {
            throw new IllegalArgumentException("maxWave must be positive, got " + maxWave);
        }
        int added = 0;
        int late = 0;
        if (slots.isEmpty() && n > 0) {
            world.addNodes(1);
            added = 1;
        }
        while (added < n) {
            int[] joined = slots.joinedIndexes();
            if (joined.length == 0) {
                throw new IllegalStateException("no joined node to join through");
            }
            int wave = Math.min(n - added, Math.min(maxWave, joined.length));
            int first = slots.size();
            for (int i = 0; i < wave; i++) {
                booter.boot(slots.get(booter.newSlot()), slots.randomDistinct(joined, 3, random));
            }
            long start = scheduler.nanoTime();
            int lateInWave = awaitWave(first, slots.size(), wave);
            late += lateInWave;
            added += wave;
            listener.waveEnded(wave, scheduler.nanoTime() - start, lateInWave);
        }
        return late;
    }

    /**
     * Runs the world until the nodes {@code first} to {@code end} (exclusive) have joined, all but one in a thousand,
     * or the wave's time is up; returns how many had not.
     */
    private int awaitWave(int first, int end, int wave) {
        // Nodes join in about the same order they started: checking the earliest unjoined one is enough most of
        // the time, and keeps the per-event check O(1).
        int[] next = {first};
        BooleanSupplier allJoined = () -> {
            while (next[0] < end && slots.get(next[0]).node.isJoined()) {
                next[0]++;
            }
            return next[0] == end;
        };
        long deadline = scheduler.nanoTime() + WAVE_MAX_NANOS;
        // All but one in a thousand: in a large wave the last few joins are ones that met a swamped node, and
        // waiting for them costs the whole overlay's maintenance for seconds of virtual time.
        while (!scheduler.runUntil(allJoined, Math.min(deadline, scheduler.nanoTime() + WAVE_CHECK_NANOS))) {
            int unjoined = slots.unjoined(first, end);
            if (unjoined <= wave / 1000 || scheduler.nanoTime() >= deadline) {
                return unjoined;
            }
        }
        return 0;
    }
}
