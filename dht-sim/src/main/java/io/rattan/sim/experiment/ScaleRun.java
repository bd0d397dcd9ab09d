package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * The simulator's scale benchmark: many unmodified nodes on the latency matrix, joined through the protocol in
 * waves, a few values put, then many delay-aware gets from random gateways spread over a stretch of virtual time,
 * with every node's maintenance running at the real node's periods. Measures the simulator (wall time, events per
 * second, heap per node), and the overlay's get success and latency as a sanity check on what was simulated.
 */
final class ScaleRun {

    /** What to run. */
    record Params(int nodes, int gets, int values, long getPhaseNanos, long seed, int maxWave) {
    }

    /** What a run measured; times in nanoseconds, heap in bytes, latencies in microseconds. */
    record Result(long joinWallNanos, long joinVirtualNanos, long putWallNanos, int valuesStored,
                  long getWallNanos, long getVirtualNanos, long totalWallNanos, long events, long getEvents,
                  long processCpuNanos, long threadCpuNanos, long heapBaseline, long heapAfterJoin,
                  long heapAfterGets, long heapPeak, long getsOk, long getsFailed, Histogram latency, long traceHash) {
    }

    private static final long SECOND = 1_000_000_000L;
    /** Every request starts at one gateway and gets route delay-aware, unhedged: the simulator's cost, not a race. */
    private static final GetOptions ONE_GATEWAY = GetOptions.of(RoutingMode.DELAY_AWARE);
    private static final int PUT_ATTEMPTS = 5;
    /** Virtual seconds the world runs after the last wave before the puts. */
    static final int SETTLE_SECONDS = 10;

    private final Params params;
    private final LatencyMatrix matrix;
    private final List<SlowPeriod> periods;
    private final SlowNodeModel model;
    private final NodeConfig config;
    private final Consumer<String> log;

    ScaleRun(Params params, LatencyMatrix matrix, List<SlowPeriod> periods, SlowNodeModel model, NodeConfig config,
             Consumer<String> log) {
        this.params = params;
        this.matrix = matrix;
        this.periods = periods;
        this.model = model;
        this.config = config;
        this.log = log;
    }

    Result run() {
        Start start = Start.now();
        SplittableRandom random = new SplittableRandom(params.seed());
        VirtualWorld world = setUp();
        Joined joined = joinPhase(world, start);
        Stored stored = putPhase(world, random);
        Gets gets = getPhase(world, random, stored);
        return report(world, start, joined, stored, gets);
    }

    /** Where the run's measurements count from; the heap before the world existed is the baseline. */
    private record Start(long heapBaseline, long processCpuNanos, long threadCpuNanos, long wallNanos) {
        static Start now() {
            long heapBaseline = HeapProbe.retainedBytes();
            long cpu = HeapProbe.processCpuNanos();
            long threadCpu = HeapProbe.threadCpuNanos();
            return new Start(heapBaseline, cpu, threadCpu, System.nanoTime());
        }
    }

    /** The join phase's cost: wall time from the start, virtual time, heap retained (minus the baseline). */
    private record Joined(long wallNanos, long virtualNanos, long heapAfter) {
    }

    /** The values the put phase stored, {@code values.get(i)} under {@code keys.get(i)}. */
    private record Stored(List<Id> keys, List<Bytes> values, long wallNanos) {
    }

    /** What the get phase measured; latencies in microseconds. */
    private record Gets(Histogram latency, long ok, long failed, long wallNanos, long virtualNanos, long events) {
    }

    private VirtualWorld setUp() {
        HostAssignment hosts = HostAssignment.on(matrix, params.nodes(), params.seed());
        WideAreaLatencyModel net = new WideAreaLatencyModel(matrix, hosts, periods, model,
                params.seed() ^ 0x9E3779B97F4A7C15L);
        VirtualWorld world = new VirtualWorld(params.seed(), config, net);
        net.attach(world.scheduler());
        return world;
    }

    /** Joins every node in waves, then lets the overlay settle. */
    private Joined joinPhase(VirtualWorld world, Start start) {
        long[] lastWave = {System.nanoTime()};
        int late = world.addNodesInWaves(params.nodes(), params.maxWave(), (size, virtualNanos, lateInWave) -> {
            long now = System.nanoTime();
            log.accept(String.format("  wave of %d: %d nodes now, %.1f s virtual, %.1f s wall, %d not joined, "
                            + "%d events so far", size, world.size(), virtualNanos / 1e9, (now - lastWave[0]) / 1e9,
                    lateInWave, world.scheduler().executed()));
            lastWave[0] = now;
        });
        if (late > 0) {
            log.accept(late + " nodes had not joined when their wave ended (their root, path or bootstrap was slow "
                    + "or swamped); they kept trying");
        }
        // Nodes of one wave learn of each other by leaf-set exchange after they joined; ten exchange periods let that
        // settle. Longer costs the largest runs minutes of wall time for nothing the gets then show.
        world.runFor(SETTLE_SECONDS * SECOND);
        long joinWall = System.nanoTime() - start.wallNanos();
        long joinVirtual = world.scheduler().nanoTime();
        log.accept(String.format("%d nodes joined in %.1f s wall, %.0f s virtual (settling included); %d events",
                params.nodes(), joinWall / 1e9, joinVirtual / 1e9, world.scheduler().executed()));
        return new Joined(joinWall, joinVirtual, HeapProbe.retainedBytes() - start.heapBaseline());
    }

    private Stored putPhase(VirtualWorld world, SplittableRandom random) {
        long put0 = System.nanoTime();
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        putValues(world, random, keys, values);
        long putWall = System.nanoTime() - put0;
        log.accept(String.format("%d of %d values stored in %.1f s wall", keys.size(), params.values(),
                putWall / 1e9));
        if (keys.isEmpty()) {
            throw new IllegalStateException("no value could be stored");
        }
        return new Stored(keys, values, putWall);
    }

    /** Runs the gets to the last answer, logging progress every 10 s of wall time. */
    private Gets getPhase(VirtualWorld world, SplittableRandom random, Stored stored) {
        Histogram latency = new Histogram(3_600_000_000L, 3);
        long[] outcome = new long[2];
        long events0 = world.scheduler().executed();
        long get0 = System.nanoTime();
        long start = world.scheduler().nanoTime();
        new GetSource(world, random, stored.keys(), stored.values(), latency, outcome).scheduleFirst();
        long lastReport = get0;
        while (outcome[0] + outcome[1] < params.gets()) {
            // Stops at the last answer, not at the end of a 10 s slice: at 100,000 nodes a slice is minutes of wall.
            world.runUntil(() -> outcome[0] + outcome[1] >= params.gets(), 10 * SECOND);
            if (System.nanoTime() - lastReport > 10 * SECOND) {
                lastReport = System.nanoTime();
                double wall = (lastReport - get0) / 1e9;
                long events = world.scheduler().executed() - events0;
                log.accept(String.format("  %.0f virtual min: %d gets done, %d events, %.0f s wall, %.0f events/s",
                        (world.scheduler().nanoTime() - start) / 60e9, outcome[0] + outcome[1], events, wall,
                        events / wall));
            }
            if (world.scheduler().nanoTime() - start > params.getPhaseNanos() + 600 * SECOND) {
                throw new IllegalStateException("gets did not finish within 10 minutes after the get phase");
            }
        }
        long getWall = System.nanoTime() - get0;
        return new Gets(latency, outcome[0], outcome[1], getWall, world.scheduler().nanoTime() - start,
                world.scheduler().executed() - events0);
    }

    /** The whole run's figures; the heap is measured last, with every node still live. */
    private Result report(VirtualWorld world, Start start, Joined joined, Stored stored, Gets gets) {
        long totalWall = System.nanoTime() - start.wallNanos();
        long cpu = start.processCpuNanos() < 0 ? -1 : HeapProbe.processCpuNanos() - start.processCpuNanos();
        long threadCpu = start.threadCpuNanos() < 0 ? -1 : HeapProbe.threadCpuNanos() - start.threadCpuNanos();
        long events = world.scheduler().executed();
        long heapPeak = HeapProbe.peakBytes();
        long heapAfterGets = HeapProbe.retainedBytes() - start.heapBaseline();
        int unjoined = 0;
        for (int i = 0; i < world.size(); i++) {
            unjoined += world.node(i).isJoined() ? 0 : 1;
        }
        // Also keeps the world reachable until the heap has been measured with every node live.
        log.accept(unjoined + " of " + world.size() + " nodes had not joined at the end");
        return new Result(joined.wallNanos(), joined.virtualNanos(), stored.wallNanos(), stored.keys().size(),
                gets.wallNanos(), gets.virtualNanos(), totalWall, events, gets.events(), cpu, threadCpu,
                start.heapBaseline(), joined.heapAfter(), heapAfterGets, heapPeak, gets.ok(), gets.failed(),
                gets.latency(), world.network().traceHash());
    }

    /** Puts the values at once from random gateways, retrying a failed put through another; keeps the stored ones. */
    private void putValues(VirtualWorld world, SplittableRandom random, List<Id> keys, List<Bytes> values) {
        int n = params.values();
        Id[] key = new Id[n];
        Bytes[] value = new Bytes[n];
        boolean[] stored = new boolean[n];
        for (int i = 0; i < n; i++) {
            key[i] = Id.random(random);
            value[i] = Bytes.utf8("value-" + i + "-" + random.nextLong());
        }
        for (int attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
            int[] outstanding = {0};
            // Why the puts of this round failed, counted: at scale a failed put is the only trace of a broken region.
            Map<String, Integer> failures = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                if (stored[i]) {
                    continue;
                }
                int v = i;
                int gateway = random.nextInt(world.size());
                // Spread over a second, as clients would be.
                long delay = random.nextLong(SECOND);
                outstanding[0]++;
                world.scheduler().schedule(delay, () -> world.node(gateway).handleClient(
                        new ClientPut(key[v], value[v], 86_400, Bytes.EMPTY), reply -> {
                            outstanding[0]--;
                            boolean ok = reply instanceof PutReply p && p.status() == Status.OK;
                            stored[v] |= ok;
                            if (!ok) {
                                failures.merge(String.valueOf(reply), 1, Integer::sum);
                            }
                        }));
            }
            if (outstanding[0] == 0) {
                break;
            }
            long virtual0 = world.scheduler().nanoTime();
            long deadline = 2 * SECOND + 2 * config.requestTimeoutMillis() * 1_000_000L;
            if (!world.runUntil(() -> outstanding[0] == 0, deadline)) {
                throw new IllegalStateException(outstanding[0] + " puts never answered");
            }
            if (!failures.isEmpty()) {
                log.accept(String.format("  put round %d (%.1f s virtual): %s", attempt + 1,
                        (world.scheduler().nanoTime() - virtual0) / 1e9, failures));
            }
        }
        for (int i = 0; i < n; i++) {
            if (stored[i]) {
                keys.add(key[i]);
                values.add(value[i]);
            }
        }
    }

    /**
     * Starts the gets one after another at Poisson times, each from a random gateway for a random stored key. Each
     * get schedules the next, so the queue never holds a million future gets at once.
     */
    private final class GetSource {
        private final VirtualWorld world;
        private final SplittableRandom random;
        private final List<Id> keys;
        private final List<Bytes> values;
        private final Histogram latency;
        private final long[] outcome;
        private final double meanGapNanos;
        private int started;

        GetSource(VirtualWorld world, SplittableRandom random, List<Id> keys, List<Bytes> values, Histogram latency,
                  long[] outcome) {
            this.world = world;
            this.random = random;
            this.keys = keys;
            this.values = values;
            this.latency = latency;
            this.outcome = outcome;
            this.meanGapNanos = (double) params.getPhaseNanos() / params.gets();
        }

        void scheduleFirst() {
            scheduleNext();
        }

        private void scheduleNext() {
            if (started == params.gets()) {
                return;
            }
            started++;
            long gap = (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
            world.scheduler().schedule(gap, this::startOne);
        }

        private void startOne() {
            int k = random.nextInt(keys.size());
            int gateway = random.nextInt(world.size());
            long t0 = world.scheduler().nanoTime();
            Bytes expected = values.get(k);
            world.node(gateway).handleClient(ClientGet.of(keys.get(k), ONE_GATEWAY),
                    reply -> done(reply, expected, t0));
            scheduleNext();
        }

        private void done(Message reply, Bytes expected, long t0) {
            if (reply instanceof GetReply g && g.status() == Status.OK && holds(g.values(), expected)) {
                outcome[0]++;
                latency.recordValue(Math.max(1, (world.scheduler().nanoTime() - t0) / 1_000));
            } else {
                outcome[1]++;
            }
        }

        private boolean holds(List<ValueEntry> entries, Bytes expected) {
            for (ValueEntry e : entries) {
                if (e.value().equals(expected)) {
                    return true;
                }
            }
            return false;
        }
    }
}
