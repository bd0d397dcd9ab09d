package io.rattan.sim.experiment;

import io.rattan.api.GetOptions;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;

/**
 * The OpenDHT study's workload in the virtual world: unmodified nodes on a latency matrix with slow periods, values
 * put and kept alive, every get performed in every mode, modes in a fresh random order per round, one after another.
 * Each round has a client on a random node's host, whose gateway is that node; modes with more gateways also use
 * two other random nodes, the same for every mode of the round. Latency is measured at the client; a get succeeds
 * only with exactly the value put, and a failed get counts at the request timeout. The oracle is the RTT from the
 * client's host to the nearest replica that is not slow when the round starts. Every message a get causes is
 * charged to it ({@link CostMeter}).
 *
 * <p>With {@link Churn}, nodes join, leave and crash during the get phase ({@link ChurnDriver}); each round then
 * picks its nodes among those serving (alive, joined, not leaving) when it starts, and the oracle counts only live
 * replicas. Values are kept alive by the nodes' own repair alone.
 */
public final class OpenDhtTable {

    /**
     * A way of performing a get, as the table names it. A one-hop mode's client ({@link GetOptions#oneHop()}) sends
     * each copy straight to a replica its image knows (see {@link OneHopClient}) instead of through gateways.
     */
    public record Mode(String name, GetOptions options, int hedges) {
        /** With one hedge copy when hedged (a one-hop get's hedges follow {@link OneHopClient} instead). */
        public Mode(String name, GetOptions options) {
            this(name, options, options.hedge() ? 1 : 0);
        }

        public Mode {
            if (hedges < 0 || hedges > 0 != options.hedge()) {
                throw new IllegalArgumentException("a hedged mode has at least one hedge, another none: " + name);
            }
        }

        /** Whether the client sends this mode's copies straight to replicas it knows. */
        public boolean oneHop() {
            return options.oneHop();
        }

        /** Copies a routed get of this mode may send, hence the gateways its rounds need. */
        public int copiesMax() {
            return options.oneHop() ? options.maxCopies() : options.gateways() + hedges;
        }

        /** Each hedge copy of a routed get goes one threshold after the copy before it. */
        public long[] routedHedgeWaits(long thresholdNanos) {
            long[] waits = new long[hedges];
            Arrays.fill(waits, thresholdNanos);
            return waits;
        }
    }

    /** One row of the result; cost columns are null for the oracle. */
    public record Row(String mode, long gets, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                      Double msgsPerGet, Double bytesPerGet, long failed, long hedges) {
    }

    /** What to run; {@code churn} applies during the get phase. */
    public record Params(int nodes, int gets, int values, long getPhaseNanos, long seed, Churn churn) {
        /** Without churn. */
        public Params(int nodes, int gets, int values, long getPhaseNanos, long seed) {
            this(nodes, gets, values, getPhaseNanos, seed, Churn.NONE);
        }
    }

    /**
     * Everything a run measured. {@code latencies} are in microseconds, one per row, for plots;
     * {@code messagesByType} counts the messages sent during the get phase; maintenance is per live node-second.
     * {@code healthyGateway} is each mode's p99 over only the rounds whose own node (the client's gateway) was not
     * in a slow period when the round started, and how many rounds those were: what routing can change, where the
     * full p99 also holds the gets that queue behind a slow gateway in every mode alike. {@code nodeKeys} are the
     * first nodes' keys, node i's at i: a real cluster given them ({@code cluster start --keys}) has this world's ids,
     * and routes as it.
     * {@code getPhaseStartNanos} is when the rounds began, in the world's time, which the slow trace counts in.
     */
    public record Result(List<Row> rows, List<Histogram> latencies, double maintenanceMsgsPerNodeSecond,
                         double maintenanceBytesPerNodeSecond, long events, Map<MessageType, Long> messagesByType,
                         Churn.Counts churn, List<Double> healthyGatewayP99Ms, long healthyGatewayRounds,
                         List<NodeKey> nodeKeys, GetLog gets, long getPhaseStartNanos) {
    }

    private static final long SECOND = 1_000_000_000L;

    /** How long the world runs between the put phase and the warm-up (or the rounds): its tables settle. */
    public static final long SETTLE_NANOS = 30 * SECOND;

    private final Params params;
    private final LatencyMatrix matrix;
    private final List<SlowPeriod> periods;
    private final SlowNodeModel model;
    private final NodeConfig config;
    private final List<Mode> modes;
    private final Consumer<String> log;
    private final Progress progress;

    /** Progress of the get phase, for a progress bar. */
    @FunctionalInterface
    public interface Progress {
        void update(int roundsDone, int rounds, long virtualNanos, long events);
    }

    public OpenDhtTable(Params params, LatencyMatrix matrix, List<SlowPeriod> periods, SlowNodeModel model,
                        NodeConfig config, List<Mode> modes, Consumer<String> log, Progress progress) {
        this.params = params;
        this.matrix = matrix;
        this.periods = periods;
        this.model = model;
        this.config = config;
        this.modes = List.copyOf(modes);
        this.log = log;
        this.progress = progress;
    }

    /**
     * How many nodes a run of {@code params} starts, the nodes its churn adds included: the world's hosts and slow
     * periods must cover that many. Node i of a run is the i-th started, so its host and slow periods are the same
     * whatever the churn.
     */
    public static int nodeSlots(Params params) {
        return params.nodes() + churnPlan(params).joins();
    }

    private static ChurnPlan churnPlan(Params params) {
        return ChurnPlan.draw(params.churn(), params.getPhaseNanos(), params.seed());
    }

    /** The node configuration of the experiment: the real node's, with 8 replicas and Bamboo's 5 s initial RTO. */
    public static NodeConfig experimentConfig() {
        return experimentConfig(NodeConfig.defaults().leafSetHalf(), 8);
    }

    /**
     * The experiment's configuration with another leaf set and k (a real cluster's, for {@code bench table}'s
     * inputs); k at most {@code leafSetHalf + 1}.
     */
    public static NodeConfig experimentConfig(int leafSetHalf, int replicas) {
        return NodeConfig.defaults().toBuilder().leafSetHalf(leafSetHalf).replicas(replicas, 2).build()
                .withTimeouts(10_000, 5_000, 20, 5_000);
    }

    /** The table's modes, in its order. */
    public static List<Mode> standardModes() {
        GetOptions da = GetOptions.of(RoutingMode.DELAY_AWARE);
        GetOptions it = GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3);
        return List.of(
                new Mode("greedy", GetOptions.of(RoutingMode.GREEDY)),
                new Mode("delay-aware", da),
                new Mode("delay-aware-2gw", da.withGateways(2)),
                new Mode("delay-aware-3gw", da.withGateways(3)),
                new Mode("iterative-3", it),
                new Mode("iterative-3-2gw", it.withGateways(2)),
                new Mode("hedged", da.withHedge(true)),
                new Mode("one-hop-hedged", da.withHedge(true).withOneHop(true)));
    }

    /**
     * Modes that are not in the table but can be asked for by name ({@code --modes}), for experiments that the
     * default run should not pay for: {@code hedged-escalating} is {@code hedged} with a second hedge copy, through a
     * third gateway, when the first two are both still unanswered one more threshold later.
     */
    public static List<Mode> extraModes() {
        return List.of(new Mode("hedged-escalating", GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), 2));
    }

    /**
     * The modes named, in the order given: the table's ({@link #standardModes()}) and the extra ones
     * ({@link #extraModes()}); all of the table's when {@code names} is null or empty.
     *
     * @throws IllegalArgumentException naming an unknown mode and listing the known ones
     */
    public static List<Mode> modesNamed(List<String> names) {
        if (names == null || names.isEmpty()) {
            return standardModes();
        }
        List<Mode> all = new ArrayList<>(standardModes());
        all.addAll(extraModes());
        List<Mode> chosen = new ArrayList<>();
        for (String name : names) {
            chosen.add(all.stream().filter(m -> m.name().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown mode '" + name + "'; modes: "
                            + all.stream().map(Mode::name).toList())));
        }
        return chosen;
    }

    /** Runs the workload; returns one row per mode and the oracle row last. */
    public Result run() {
        SplittableRandom random = new SplittableRandom(params.seed());
        ChurnPlan plan = churnPlan(params);
        TableWorld w = setUp(plan);
        StoredValues stored = StoredValues.put(random, params.seed(), params.nodes(), params.values(),
                (gateway, put) -> w.world().request(gateway, put));
        if (stored.extraAttempts() != null) {
            log.accept(stored.extraAttempts());
        }
        w.world().runFor(SETTLE_NANOS);
        Map<Integer, OneHopClient> oneHop = new HashMap<>();
        DirectCopies direct = new DirectCopies(w);
        if (modes.stream().anyMatch(Mode::oneHop)) {
            new OneHopWarmUp(w, direct, config.replicas()).run(params.nodes(), oneHop, stored.keys(), random, log);
        }
        RoundSchedule rounds = new RoundSchedule(w, params, config, modes, stored, oneHop, direct);
        ChurnDriver churner = playRounds(rounds, plan, random);
        return report(w, rounds.tally, churner);
    }

    /** The world with its first nodes joined, metered from its first message on. */
    private TableWorld setUp(ChurnPlan plan) {
        HostAssignment hosts = HostAssignment.on(matrix, params.nodes() + plan.joins(), params.seed());
        WideAreaLatencyModel net = new WideAreaLatencyModel(matrix, hosts, periods, model,
                params.seed() ^ 0x9E3779B97F4A7C15L);
        VirtualWorld world = new VirtualWorld(params.seed(), config, net);
        net.attach(world.scheduler());
        CostMeter meter = new CostMeter(world.scheduler(), params.gets() * modes.size());
        world.network().observer(meter);
        world.addNodes(params.nodes());
        log.accept(String.format("%d nodes joined at %.0f s of virtual time", params.nodes(),
                world.scheduler().nanoTime() / 1e9));
        return new TableWorld(world, net, meter, new SimClients(world, requestTimeoutNanos() + SECOND));
    }

    private long requestTimeoutNanos() {
        return config.requestTimeoutMillis() * 1_000_000L;
    }

    /**
     * The measured phase: schedules every round, starts the churn, and runs the world until every round is decided
     * and the churn plan has played out.
     */
    private ChurnDriver playRounds(RoundSchedule rounds, ChurnPlan plan, SplittableRandom random) {
        VirtualWorld world = rounds.w.world();
        long start = world.scheduler().nanoTime();
        rounds.w.meter().countMaintenance(true);
        // Churn draws from streams of its own, and a round's nodes are drawn from the workload's stream even when
        // churn replaces them: times, keys and mode orders are the same with and without churn, and a run without
        // churn is the run from before churn existed.
        SplittableRandom churnRandom = new SplittableRandom(params.seed() ^ 0xBB67AE8584CAA73BL);
        SplittableRandom roundNodes = churnRandom.split();
        ChurnDriver churner = new ChurnDriver(world, plan, ChurnDriver.minServing(config), churnRandom.split(),
                rounds.w.clients()::addGateway);
        rounds.scheduleAll(start, random, roundNodes);
        churner.start();
        int total = params.gets();
        while (rounds.tally.roundsDone() < total || !churner.finished()) {
            world.runFor(10 * SECOND);
            progress.update(rounds.tally.roundsDone(), total, world.scheduler().nanoTime(),
                    world.scheduler().executed());
            if (world.scheduler().nanoTime() - start > params.getPhaseNanos() + 3600 * SECOND) {
                throw new IllegalStateException("gets did not finish within an hour after the get phase");
            }
        }
        rounds.w.meter().countMaintenance(false);
        return churner;
    }

    /** Each mode's row, with what its gets cost, then the oracle's; maintenance per live node-second. */
    private Result report(TableWorld w, RoundTally tally, ChurnDriver churner) {
        int m = modes.size();
        CostMeter meter = w.meter();
        double nodeSeconds = (double) churner.aliveNodeNanos() / SECOND;
        for (int i = 0; i < m; i++) {
            for (int round = 0; round < params.gets(); round++) {
                tally.charge(i, meter.messages(round * m + i + 1), meter.bytes(round * m + i + 1));
            }
        }
        List<Row> rows = tally.rows(params.gets());
        return new Result(rows, tally.histograms(), meter.maintenanceMessages() / nodeSeconds,
                meter.maintenanceBytes() / nodeSeconds, w.world().scheduler().executed(), meter.sentByType(),
                churner.counts(), tally.healthyGatewayP99Ms(), tally.healthyRounds(),
                IntStream.range(0, params.nodes()).mapToObj(i -> w.world().key(i)).toList(), tally.gets(),
                tally.getPhaseStartNanos());
    }

    /** Whether {@code m} is a good answer to a get, one a race may stop at. */
    public static boolean isOk(Message m) {
        return m instanceof GetReply g && g.status() == Status.OK;
    }

    /** A row of the table from latencies in microseconds; the cost columns null for the oracle. */
    public static Row row(String mode, Histogram h, Double msgs, Double bytes, long failed, long hedges) {
        return new Row(mode, h.getTotalCount(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(90) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0, msgs, bytes, failed, hedges);
    }

    /** The reference (Rhea et al., WORLDS 2005): p50 ms, p99 ms, msgs/get, bytes/get. */
    public static Map<String, double[]> reference() {
        Map<String, double[]> ref = new LinkedHashMap<>();
        ref.put("greedy", new double[] {150, 4400, 5.5, 1800});
        ref.put("delay-aware", new double[] {100, 1800, 6.0, 2000});
        ref.put("delay-aware-2gw", new double[] {70, 610, 12, 4000});
        ref.put("delay-aware-3gw", new double[] {57, 440, 17, 5300});
        ref.put("iterative-3", new double[] {120, 790, 15, 3800});
        ref.put("iterative-3-2gw", new double[] {76, 360, 27, 6700});
        return ref;
    }
}
