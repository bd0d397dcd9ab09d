package io.rattan.sim.faults;

import io.rattan.api.Id;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rule 6: once the faults stop, repair puts every live value back on all k of its key's replicas (the k serving
 * nodes closest to the key) within {@link #BOUND_NANOS}. From the stop it looks once a second at every acknowledged
 * value that must still be live (no remove started, not lost to disk faults, not within 2 S of its true expiry,
 * acknowledged over {@link Checker#inFlightNanos()} before); at the bound, each value short of its k replicas is a
 * violation. It notes the last second any value was short, for the summary. Reads the stores only.
 */
final class CopiesBackCheck {

    /** The bound: repair's sessions after a view change, and an anti-entropy round per member, fit well within it. */
    static final long BOUND_NANOS = 60_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final VirtualWorld world;
    private final Checker checker;
    private final GetDiagnosis diagnosis;
    private final long stopNanos;
    private final long endNanos;
    private long checked;
    private long lastShortNanos = -1;

    CopiesBackCheck(VirtualWorld world, Checker checker, GetDiagnosis diagnosis, long stopNanos, long endNanos) {
        this.world = world;
        this.checker = checker;
        this.diagnosis = diagnosis;
        this.stopNanos = stopNanos;
        this.endNanos = endNanos;
    }

    void start() {
        world.scheduler().schedule(stopNanos - world.scheduler().nanoTime(), this::look);
    }

    private void look() {
        long now = world.scheduler().nanoTime();
        boolean atBound = now >= stopNanos + BOUND_NANOS;
        int k = world.config().replicas();
        Map<Id, List<Integer>> replicasOf = new HashMap<>();
        boolean anyShort = false;
        for (PutRecord p : checker.allPuts()) {
            if (!p.acked() || now - p.ackNanos < checker.inFlightNanos() || p.removeStartNanos != Long.MAX_VALUE
                    || p.lostToDiskFaults || p.ackedOnLiarsWord
                    || p.earliestExpiryNanos() - 2 * Checker.S_NANOS <= now) {
                continue;
            }
            checked += atBound ? 1 : 0;
            List<Integer> replicas = replicasOf.computeIfAbsent(p.key, diagnosis::trueReplicas);
            List<Integer> holders = new ArrayList<>();
            for (int i : replicas) {
                if (world.store(i).read(p.key, p.slot).filter(r -> !r.tombstone()).isPresent()) {
                    holders.add(i);
                }
            }
            if (holders.size() < Math.min(k, replicas.size()) - liarsAmong(replicas)) {
                anyShort = true;
                if (atBound) {
                    checker.copiesNotBack(p, replicas, holders);
                }
            }
        }
        if (anyShort) {
            lastShortNanos = now;
        }
        if (!atBound && now + SECOND < endNanos) {
            world.scheduler().schedule(SECOND, this::look);
        }
    }

    /** How many of {@code replicas} are liars that store no copy they are sent. */
    private int liarsAmong(List<Integer> replicas) {
        int n = 0;
        for (int i : replicas) {
            n += checker.storeNothing().contains(i) ? 1 : 0;
        }
        return n;
    }

    /** Values checked at the bound (0 if the run ended first). */
    long checked() {
        return checked;
    }

    /** The last look that found a value short of its k replicas, in ms after the stop; -1 if none did. */
    long lastShortMillis() {
        return lastShortNanos < 0 ? -1 : (lastShortNanos - stopNanos) / 1_000_000L;
    }
}
