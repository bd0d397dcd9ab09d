package io.rattan.sim.experiment;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Status;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.HostAssignment;
import io.rattan.sim.net.LatencyMatrix;
import io.rattan.sim.net.SlowPeriod;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * The OpenDHT study's workload in the virtual world: unmodified nodes on a latency matrix with slow periods, values
 * put and kept alive, every get performed in every mode, modes in a fresh random order per round, one after another
 * from the same gateway. Latency is measured at the gateway's host; a get succeeds only with exactly the value put,
 * and a failed get counts at the request timeout. The oracle is the RTT from the gateway's host to the nearest
 * replica that is not slow when the round starts.
 */
public final class OpenDhtTable {

    /** One row of the result. Cost columns stay null until per-get cost accounting exists. */
    public record Row(String mode, long gets, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                      Double msgsPerGet, Double bytesPerGet, long failed) {
    }

    /** What to run. */
    public record Params(int nodes, int gets, int values, long getPhaseNanos, long seed) {
    }

    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    private final Params params;
    private final LatencyMatrix matrix;
    private final List<SlowPeriod> periods;
    private final NodeConfig config;
    private final Consumer<String> progress;
    private long events;

    public OpenDhtTable(Params params, LatencyMatrix matrix, List<SlowPeriod> periods, NodeConfig config,
                        Consumer<String> progress) {
        this.params = params;
        this.matrix = matrix;
        this.periods = periods;
        this.config = config;
        this.progress = progress;
    }

    /** The node configuration of the experiment: the real node's, with 8 replicas and Bamboo's 5 s initial RTO. */
    public static NodeConfig experimentConfig() {
        return NodeConfig.defaults().withReplicas(8, 2).withTimeouts(10_000, 5_000, 20, 5_000);
    }

    /** Runs the workload; returns one row per mode and the oracle row last. */
    public List<Row> run() {
        SplittableRandom random = new SplittableRandom(params.seed());
        HostAssignment hosts = HostAssignment.random(params.nodes(), matrix.hosts(), params.seed());
        WideAreaLatencyModel net = new WideAreaLatencyModel(matrix, hosts, periods,
                io.rattan.sim.net.SlowNodeModel.defaults(), params.seed() ^ 0x9E3779B97F4A7C15L);
        VirtualWorld world = new VirtualWorld(params.seed(), config, net);
        net.attach(world.scheduler());
        world.addNodes(params.nodes());
        progress.accept(String.format("%d nodes joined at %.0f s of virtual time", params.nodes(),
                world.scheduler().nanoTime() / 1e9));
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        for (int i = 0; i < params.values(); i++) {
            Id key = Id.random(random);
            Bytes value = Bytes.utf8("value-" + i + "-" + random.nextLong());
            // A client retries a put that a slow root or replica let time out, through another gateway.
            Message put = null;
            for (int attempt = 0; attempt < 5 && !(put instanceof PutReply p && p.status() == Status.OK); attempt++) {
                put = world.request(random.nextInt(params.nodes()), new ClientPut(key, value, 86_400, Bytes.EMPTY));
            }
            if (!(put instanceof PutReply p) || p.status() != Status.OK) {
                throw new IllegalStateException("put " + i + " failed 5 times: " + put);
            }
            keys.add(key);
            values.add(value);
        }
        world.runFor(30 * SECOND);

        RoutingMode[] modes = RoutingMode.values();
        Map<RoutingMode, Histogram> latency = new EnumMap<>(RoutingMode.class);
        Map<RoutingMode, long[]> failed = new EnumMap<>(RoutingMode.class);
        for (RoutingMode m : modes) {
            latency.put(m, new Histogram(3_600_000_000L, 3));
            failed.put(m, new long[1]);
        }
        Histogram oracle = new Histogram(3_600_000_000L, 3);
        long timeoutMicros = config.requestTimeoutMillis() * 1000;
        long start = world.scheduler().nanoTime();
        double meanGap = (double) params.getPhaseNanos() / params.gets();
        long at = start;
        int[] done = {0};
        for (int round = 0; round < params.gets(); round++) {
            at += (long) (-Math.log(1 - random.nextDouble()) * meanGap);
            int gateway = random.nextInt(params.nodes());
            int k = random.nextInt(keys.size());
            List<RoutingMode> order = new ArrayList<>(List.of(modes));
            for (int i = order.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                RoutingMode t = order.get(i);
                order.set(i, order.get(j));
                order.set(j, t);
            }
            long roundAt = at;
            world.scheduler().schedule(roundAt - world.scheduler().nanoTime(), () -> {
                oracle.recordValue(Math.max(1, (long) (oracleMillis(world, net, gateway, keys.get(k), roundAt)
                        * 1000)));
                runRound(world, gateway, keys.get(k), values.get(k), order, 0, latency, failed, timeoutMicros,
                        done);
            });
        }
        int total = params.gets();
        int reported = 0;
        while (done[0] < total) {
            world.runFor(10 * SECOND);
            if (done[0] * 10 / total > reported) {
                reported = done[0] * 10 / total;
                progress.accept(String.format("gets: %d%% (%d rounds)", reported * 10, done[0]));
            }
            if (world.scheduler().nanoTime() - start > params.getPhaseNanos() + 3600 * SECOND) {
                throw new IllegalStateException("gets did not finish within an hour after the get phase");
            }
        }
        events = world.scheduler().executed();
        List<Row> rows = new ArrayList<>();
        for (RoutingMode m : modes) {
            rows.add(row(m.label(), latency.get(m), failed.get(m)[0]));
        }
        rows.add(row("oracle", oracle, 0));
        return rows;
    }

    /** Events the world ran, for the events-per-second report. */
    public long events() {
        return events;
    }

    private void runRound(VirtualWorld world, int gateway, Id key, Bytes expected, List<RoutingMode> order, int i,
                          Map<RoutingMode, Histogram> latency, Map<RoutingMode, long[]> failed, long timeoutMicros,
                          int[] done) {
        if (i == order.size()) {
            done[0]++;
            return;
        }
        RoutingMode mode = order.get(i);
        long issued = world.scheduler().nanoTime();
        world.node(gateway).handleClient(new ClientGet(key, mode, 0, Bytes.EMPTY), reply -> {
            long micros = (world.scheduler().nanoTime() - issued) / 1000;
            boolean ok = reply instanceof GetReply g && g.status() == Status.OK && g.values().size() == 1
                    && g.values().get(0).value().equals(expected);
            if (ok) {
                latency.get(mode).recordValue(Math.max(1, micros));
            } else {
                failed.get(mode)[0]++;
                latency.get(mode).recordValue(Math.max(micros, timeoutMicros));
            }
            // The next mode starts once this one is answered, as one client would run them.
            world.scheduler().execute(() -> runRound(world, gateway, key, expected, order, i + 1, latency, failed,
                    timeoutMicros, done));
        });
    }

    /** RTT from the gateway's host to the nearest replica not slow at {@code atNanos}; the lower bound of a get. */
    private double oracleMillis(VirtualWorld world, WideAreaLatencyModel net, int gateway, Id key, long atNanos) {
        List<Integer> live = world.liveIndexes();
        live.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        double best = Double.MAX_VALUE;
        for (int r : live.subList(0, Math.min(config.replicas(), live.size()))) {
            if (!net.isSlow(r, atNanos)) {
                best = Math.min(best, r == gateway ? 0 : net.rttMillis(gateway, r));
            }
        }
        return best == Double.MAX_VALUE ? config.requestTimeoutMillis() : best;
    }

    private static Row row(String mode, Histogram h, long failed) {
        return new Row(mode, h.getTotalCount(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(90) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0, null, null, failed);
    }

    /** The reference (Rhea et al., WORLDS 2005) for the modes we have, to print beside ours. */
    public static Map<String, double[]> reference() {
        Map<String, double[]> ref = new LinkedHashMap<>();
        ref.put("greedy", new double[] {150, 4400, 5.5, 1800});
        ref.put("delay-aware", new double[] {100, 1800, 6.0, 2000});
        return ref;
    }

}
