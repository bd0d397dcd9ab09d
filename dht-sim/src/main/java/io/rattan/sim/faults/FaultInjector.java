package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Draws faults from its own random source and injects them into the world as it runs: one fault every 4–16 s of
 * virtual time, of a kind drawn uniformly (a kind that cannot fire now — a third node down, a second partition — is
 * drawn again), each healed after a drawn time. With a budget, everything heals at the stop time and nothing more is
 * injected. Single-threaded, on the world's thread.
 */
final class FaultInjector {

    private static final long SECOND = 1_000_000_000L;
    private static final int DOWN_MAX = 2;
    private static final long STEP_MILLIS = 3_600_000L;
    private static final long SKEW_MILLIS_MAX = 30_000L;

    private final VirtualWorld world;
    private final LinkFaultState links;
    private final SplittableRandom random;
    private final long stopNanos;
    private final EnumMap<FaultKind, Integer> fired = new EnumMap<>(FaultKind.class);
    private final TreeSet<Integer> down = new TreeSet<>();
    private final TreeSet<Integer> full = new TreeSet<>();
    private final EnumMap<FaultKind, Integer> generation = new EnumMap<>(FaultKind.class);
    private final int[] clockGeneration;
    private Checker checker;
    private GetDiagnosis diagnosis;
    private String partitionKind = "";
    private final PartitionHistory partitions = new PartitionHistory();
    // When each node last started again after a crash (Long.MIN_VALUE: never crashed).
    private final long[] restartedAt;
    private boolean stopped;

    FaultInjector(VirtualWorld world, LinkFaultState links, SplittableRandom random, long stopNanos) {
        this.world = world;
        this.links = links;
        this.random = random;
        this.stopNanos = stopNanos;
        this.clockGeneration = new int[world.size()];
        this.restartedAt = new long[world.size()];
        java.util.Arrays.fill(restartedAt, Long.MIN_VALUE);
        for (FaultKind k : FaultKind.values()) {
            fired.put(k, 0);
            generation.put(k, 0);
        }
    }

    void checker(Checker c) {
        this.checker = c;
    }

    void diagnosis(GetDiagnosis d) {
        this.diagnosis = d;
    }

    private void note(String kind, int node) {
        if (diagnosis != null) {
            diagnosis.event(kind, node);
        }
    }

    /** Every partition so far, for the checker. */
    PartitionHistory partitions() {
        return partitions;
    }

    /** When node {@code node} last started again after a crash (Long.MIN_VALUE: never). */
    long restartedAt(int node) {
        return restartedAt[node];
    }

    /** Starts injecting at {@code startNanos} (absolute virtual time); with a budget, heals all at the stop time. */
    void start(long startNanos) {
        world.scheduler().schedule(startNanos - now(), this::injectNext);
        if (stopNanos != Long.MAX_VALUE) {
            world.scheduler().schedule(stopNanos - now(), this::stopAndHeal);
        }
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    private long between(long minSeconds, long maxSeconds) {
        return minSeconds * SECOND + random.nextLong((maxSeconds - minSeconds) * SECOND + 1);
    }

    private void later(long delayNanos, Runnable task) {
        world.scheduler().schedule(delayNanos, () -> {
            if (!stopped) {
                task.run();
            }
        });
    }

    private void injectNext() {
        if (stopped) {
            return;
        }
        FaultKind[] kinds = FaultKind.values();
        for (int attempt = 0; attempt < 8; attempt++) {
            FaultKind kind = kinds[random.nextInt(kinds.length)];
            if (kind != FaultKind.RESTART && inject(kind)) {
                fired.merge(kind, 1, Integer::sum);
                break;
            }
        }
        later(between(4, 16), this::injectNext);
    }

    private boolean inject(FaultKind kind) {
        switch (kind) {
            case CRASH_DISK_KEPT:
                return crash(VirtualWorld.Disk.KEPT);
            case CRASH_DISK_LOST:
                return crash(VirtualWorld.Disk.LOST);
            case POWER_LOSS:
                return crash(VirtualWorld.Disk.UNSYNCED_LOST);
            case PARTITION_HALVES:
            case PARTITION_ISOLATE:
            case PARTITION_ONE_WAY:
                return partition(kind);
            case DROP:
            case DUPLICATE:
            case REORDER:
            case DELAY:
                return linkRate(kind);
            case CLOCK_STEP:
                return clock(random.nextBoolean() ? STEP_MILLIS : -STEP_MILLIS, between(30, 120));
            case CLOCK_SKEW:
                return clock(random.nextLong(2 * SKEW_MILLIS_MAX + 1) - SKEW_MILLIS_MAX, between(60, 180));
            case DISK_FULL:
                return diskFull();
            default:
                return false;
        }
    }

    private boolean crash(VirtualWorld.Disk disk) {
        List<Integer> serving = world.servingIndexes();
        if (down.size() >= DOWN_MAX || serving.size() <= 1) {
            return false;
        }
        int node = serving.get(random.nextInt(serving.size()));
        Set<Bytes> before = disk == VirtualWorld.Disk.KEPT ? Set.of() : checker.held(node);
        world.crash(node, disk);
        if (disk != VirtualWorld.Disk.KEPT) {
            checker.diskFault(node, before, disk == VirtualWorld.Disk.LOST);
        }
        down.add(node);
        note(disk == VirtualWorld.Disk.KEPT ? "crash" : "crash-disk-lost", node);
        later(between(5, 40), () -> restart(node));
        return true;
    }

    private void restart(int node) {
        if (down.remove(node) && !world.isAlive(node)) {
            restarted(node);
        }
    }

    private void restarted(int node) {
        world.restart(node);
        restartedAt[node] = now();
        fired.merge(FaultKind.RESTART, 1, Integer::sum);
        note("restart", node);
    }

    private boolean partition(FaultKind kind) {
        if (links.isPartitioned()) {
            return false;
        }
        int n = world.size();
        byte[] sides = new byte[n];
        if (kind == FaultKind.PARTITION_ISOLATE) {
            sides[random.nextInt(n)] = 1;
        } else {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                order.add(i);
            }
            for (int i = 0; i < n / 2; i++) {
                sides[order.remove(random.nextInt(order.size()))] = 1;
            }
        }
        links.partition(sides, kind == FaultKind.PARTITION_ONE_WAY);
        partitions.started(now(), sides);
        partitionKind = kind.label();
        note("partition", -1);
        later(between(5, 30), () -> {
            heal();
        });
        return true;
    }

    private void heal() {
        links.heal();
        note("heal", -1);
        partitions.healed(now());
    }

    private boolean linkRate(FaultKind kind) {
        double rate = 0.01 + random.nextDouble() * 0.09;
        switch (kind) {
            case DROP -> links.dropRate = rate;
            case DUPLICATE -> links.duplicateRate = rate;
            case REORDER -> links.reorderRate = 2 * rate;
            default -> links.extraDelayMaxNanos = 20_000_000L + random.nextLong(80_000_001L);
        }
        int gen = generation.merge(kind, 1, Integer::sum);
        later(between(10, 60), () -> {
            if (generation.get(kind) == gen) {
                switch (kind) {
                    case DROP -> links.dropRate = 0;
                    case DUPLICATE -> links.duplicateRate = 0;
                    case REORDER -> links.reorderRate = 0;
                    default -> links.extraDelayMaxNanos = 0;
                }
            }
        });
        return true;
    }

    private boolean clock(long offsetMillis, long forNanos) {
        int node = random.nextInt(world.size());
        setClock(node, offsetMillis);
        int gen = ++clockGeneration[node];
        // Set right again later (as NTP would): a second step, back to the true time.
        later(forNanos, () -> {
            if (clockGeneration[node] == gen) {
                setClock(node, 0);
            }
        });
        return true;
    }

    private void setClock(int node, long offsetMillis) {
        if (world.clockOffsetMillis(node) != offsetMillis) {
            // Before and after: a step back revives records that had expired but were not purged yet.
            checker.clockChanging(node);
            world.clockOffsetMillis(node, offsetMillis);
            checker.clockChanging(node);
        }
    }

    private boolean diskFull() {
        int node = random.nextInt(world.size());
        if (!full.add(node)) {
            return false;
        }
        world.diskFull(node, true);
        note("disk-full", node);
        later(between(10, 60), () -> {
            full.remove(node);
            world.diskFull(node, false);
            note("disk-freed", node);
        });
        return true;
    }

    /** The fault budget is spent: heal everything, inject nothing more. */
    private void stopAndHeal() {
        stopped = true;
        for (int node : new ArrayList<>(down)) {
            down.remove(node);
            if (!world.isAlive(node)) {
                restarted(node);
            }
        }
        if (links.isPartitioned()) {
            heal();
        }
        links.clearRates();
        for (int i = 0; i < world.size(); i++) {
            setClock(i, 0);
        }
        for (int node : full) {
            world.diskFull(node, false);
            note("disk-freed", node);
        }
        full.clear();
    }

    /** The faults in force now, in a line. */
    String inForce() {
        List<String> out = new ArrayList<>();
        if (!down.isEmpty()) {
            out.add("down " + down);
        }
        if (links.isPartitioned()) {
            out.add(partitionKind);
        }
        if (links.dropRate > 0) {
            out.add(String.format(Locale.ROOT, "drop %.3f", links.dropRate));
        }
        if (links.duplicateRate > 0) {
            out.add(String.format(Locale.ROOT, "dup %.3f", links.duplicateRate));
        }
        if (links.reorderRate > 0) {
            out.add(String.format(Locale.ROOT, "reorder %.3f", links.reorderRate));
        }
        if (links.extraDelayMaxNanos > 0) {
            out.add("delay <= " + links.extraDelayMaxNanos / 1_000_000L + " ms");
        }
        TreeMap<Integer, Long> clocks = new TreeMap<>();
        for (int i = 0; i < world.size(); i++) {
            if (world.clockOffsetMillis(i) != 0) {
                clocks.put(i, world.clockOffsetMillis(i));
            }
        }
        if (!clocks.isEmpty()) {
            out.add("clock offsets ms " + clocks);
        }
        if (!full.isEmpty()) {
            out.add("disk full " + full);
        }
        return out.isEmpty() ? "none" : String.join(", ", out);
    }

    EnumMap<FaultKind, Integer> fired() {
        return new EnumMap<>(fired);
    }
}
