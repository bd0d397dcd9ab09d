package io.rattan.sim.experiment;

import io.rattan.core.msg.MessageType;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.slow.SlowTrace;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowSchedule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code ./rattan sim opendht-table}: the OpenDHT study's workload, our figures beside the paper's. */
@Command(name = "opendht-table", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the OpenDHT study's workload (Rhea et al., WORLDS 2005) in virtual time: nodes on a "
                + "latency matrix with slow periods, every get performed in every mode in random order. Prints each "
                + "mode's latency percentiles and cost beside the paper's, and the oracle lower bound.",
            "With --churn, nodes join, leave gracefully and crash during the get phase; rounds use only nodes "
                + "serving when they start, the oracle only live replicas, and values live on by the nodes' own "
                + "repair.",
            "Writes DIR/table.json, table.csv, gets.csv (every get: round, gateway, key, mode, latency, ok), "
                + "cdf.png (latency CDF, log x), trace.txt (the slow periods, replayable with --trace), keys.txt (the "
                + "nodes' keys, whose hashes are their ids, for 'rattan cluster start --keys'), get-phase.txt (where "
                + "in the trace's time the rounds started, for 'rattan bench table --get-phase-from') and run.txt (wall time, events, heap, churn "
                + "counts). The same seed and flags give the same table.json and gets.csv byte for byte."})
public final class OpenDhtTableCommand implements Callable<Integer> {

    private static final long SECOND = 1_000_000_000L;

    @Option(names = "--nodes", paramLabel = "N", description = "Simulated nodes (default: ${DEFAULT-VALUE}).")
    int nodes = 300;

    @Option(names = "--gets", paramLabel = "M", description = "Get rounds; each runs every mode (default: "
            + "${DEFAULT-VALUE}).")
    int gets = 1000;

    @Option(names = "--values", paramLabel = "V", description = "Values put and kept alive (default: "
            + "${DEFAULT-VALUE}).")
    int values = 200;

    @Option(names = "--get-minutes", paramLabel = "MIN", description = "Virtual minutes the get rounds are spread "
            + "over, as a Poisson process (default: ${DEFAULT-VALUE}).")
    int getMinutes = 60;

    @Option(names = "--modes", paramLabel = "LIST", split = ",", description = "Run only these modes (default: all:"
            + " greedy, delay-aware, delay-aware-2gw, delay-aware-3gw, iterative-3, iterative-3-2gw, hedged,"
            + " one-hop-hedged); also hedged-escalating, not in the default table: hedged with a second hedge"
            + " copy through a third gateway one threshold after the first.")
    List<String> only;

    /**
     * The share of slow nodes calibrated with {@link #CALIBRATED_SLOW_DELAY} on greedy's figures alone (its row of
     * runs of every mode) against the reference (docs/experiments.md). Proximity neighbour selection made healthy
     * routes short enough that greedy's median is set by how many routes meet a slow node: ANCHORS' starting 5% gave
     * a median of 85-88 ms.
     */
    static final double CALIBRATED_SLOW_FRACTION = 0.20;

    @Option(names = "--slow-fraction", paramLabel = "F", description = "Share of nodes slow at any moment; the "
            + "default was calibrated with the default --slow-delay on greedy routing against the reference "
            + "(ANCHORS' starting proposal was 0.05) (default: ${DEFAULT-VALUE}).")
    double slowFraction = CALIBRATED_SLOW_FRACTION;

    @Option(names = "--slow-minutes", paramLabel = "MIN", description = "Mean length of a slow period "
            + "(default: ${DEFAULT-VALUE}).")
    double slowMinutes = SlowNodeModel.defaults().meanSlowNanos() / 60e9;

    /**
     * The slow delay calibrated with {@link #CALIBRATED_SLOW_FRACTION} on greedy's figures alone against the
     * reference (docs/experiments.md), then frozen for every mode. It depends on the node's maintenance load and on
     * how a slow node's timers wait behind its queue ({@code LatencyModel.readyAtNanos}): a slow node's queue is what
     * it acts on, so a change to either calls for calibrating it again (docs/history.md, "A node's timers wait behind
     * its queue").
     */
    static final String CALIBRATED_SLOW_DELAY = "47:1.5:5000";

    @Option(names = "--slow-delay", paramLabel = "MIN_MS:SHAPE:CAP_MS", description = "Extra delay per message at "
            + "a slow node, Pareto(min, shape) capped; the default was calibrated on greedy routing against the "
            + "reference (ANCHORS' starting proposal was 50:1.2:30000) (default: ${DEFAULT-VALUE}).")
    String slowDelay = CALIBRATED_SLOW_DELAY;

    @Option(names = "--churn", paramLabel = "JOINS:LEAVES:CRASHES", converter = ChurnConverter.class,
            description = "Churn during the get phase, in events per minute of virtual time across the whole "
                    + "overlay, each kind a Poisson process drawn from the seed: joins of brand-new nodes (through "
                    + "the protocol, via random joined nodes), graceful leaves (the node's own hand-off, then gone) "
                    + "and crashes of random nodes. A leave or crash that would leave fewer than max(16, k + leaf "
                    + "set) serving nodes is skipped and counted. Rates are decimals from 0 to 1000, e.g. 2:1:0.5 "
                    + "(default: ${DEFAULT-VALUE}, no churn).")
    Churn churn = Churn.NONE;

    @Option(names = "--leaf-set-half", paramLabel = "N", description = "Leaf-set members on each side, as the "
            + "node's flag; with few nodes, a small leaf set makes routes take several hops (default: the node's, "
            + "${DEFAULT-VALUE}).")
    int leafSetHalf = NodeConfig.defaults().leafSetHalf();

    @Option(names = "--replicas", paramLabel = "K", description = "Copies of each value, at most --leaf-set-half + 1"
            + " (default: 8, the study's k, or --leaf-set-half + 1 if smaller). Give a real cluster's own, to set a"
            + " simulated row beside its `bench table` row.")
    Integer replicas;

    @Option(names = "--trace", paramLabel = "FILE", description = "Replay this slow-node trace instead of drawing "
            + "one from the model.")
    Path trace;

    @Mixin
    WorldOptions world;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("sim-out");

    @Option(names = "--no-progress", description = "No progress bar on stderr.")
    boolean noProgress;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (nodes < 10 || gets < 1 || values < 1 || getMinutes < 1 || !(slowFraction >= 0 && slowFraction < 1)
                || !(slowMinutes > 0)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "need --nodes >= 10, --gets >= 1, "
                    + "--values >= 1, --get-minutes >= 1, 0 <= --slow-fraction < 1, --slow-minutes > 0");
        }
        NodeConfig config = nodeConfig();
        List<OpenDhtTable.Mode> modes = selectModes();
        long wallStart = System.nanoTime();
        LatencyMatrix matrix = world.matrix();
        SlowNodeModel model = SlowNodeModel.defaults().withSlowFraction(slowFraction)
                .withMeanSlowNanos((long) (slowMinutes * 60e9)).withSlowExtra(parseDelay(slowDelay));
        // The schedule covers joins, puts and the get phase with room to spare.
        long horizon = (getMinutes + 6L * 60) * 60 * SECOND;
        OpenDhtTable.Params params = new OpenDhtTable.Params(nodes, gets, values, getMinutes * 60L * SECOND,
                world.seed, churn);
        // Nodes that churn adds have slow periods too.
        int slots = OpenDhtTable.nodeSlots(params);
        List<SlowPeriod> periods = trace != null ? SlowTrace.read(trace)
                : slowFraction == 0 ? List.of() : SlowSchedule.generate(model, slots, horizon, world.seed);
        Files.createDirectories(out);
        SlowTrace.write(periods, out.resolve("trace.txt"));
        ProgressBar bar = new ProgressBar(System.err, !noProgress);
        OpenDhtTable table = new OpenDhtTable(params, matrix, periods, model, config, modes,
                line -> System.err.println("  " + line), bar::update);
        System.err.printf(Locale.ROOT, "opendht-table: %d nodes, %d rounds x %d modes, %d values, slow fraction "
                + "%.2f, slow periods %.0f min, slow delay Pareto(%s)%s%s, seed %d%n", nodes, gets, modes.size(),
                values, slowFraction, slowMinutes, slowDelay, trace == null ? "" : " (trace " + trace + ")",
                churn.isOff() ? "" : ", churn " + churn + " per minute (" + (slots - nodes) + " joins planned)",
                world.seed);
        OpenDhtTable.Result result = table.run();
        bar.finish();
        print(result, config);
        TableFiles.writeJson(result.rows(), out.resolve("table.json"));
        TableFiles.writeCsv(result.rows(), out.resolve("table.csv"));
        TableFiles.writeKeys(result.nodeKeys(), out.resolve("keys.txt"));
        TableFiles.writeGetPhase(result.getPhaseStartNanos(), out.resolve(TableFiles.GET_PHASE_FILE));
        result.gets().write(out.resolve("gets.csv"));
        CdfPlot.write(result.rows(), result.latencies(), out.resolve("cdf.png"));
        double wall = (System.nanoTime() - wallStart) / 1e9;
        String run = runReport(result, wall, churn);
        System.out.print(run);
        Files.writeString(out.resolve("run.txt"), run);
        System.out.printf(Locale.ROOT, "wrote %s%n", out.toAbsolutePath());
        return 0;
    }

    /** The nodes' configuration: the experiment's, with --leaf-set-half and --replicas. */
    NodeConfig nodeConfig() {
        int k = replicas != null ? replicas : Math.min(OpenDhtTable.experimentConfig().replicas(), leafSetHalf + 1);
        try {
            return OpenDhtTable.experimentConfig(leafSetHalf, k);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--leaf-set-half and --replicas: "
                    + e.getMessage());
        }
    }

    private List<OpenDhtTable.Mode> selectModes() {
        try {
            return OpenDhtTable.modesNamed(only);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Distribution parseDelay(String text) {
        try {
            return Distribution.Pareto.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--slow-delay must be MIN_MS:SHAPE:CAP_MS: "
                    + e.getMessage());
        }
    }

    static String churnReport(Churn.Counts c, Churn churn) {
        if (churn.isOff()) {
            return "churn: none\n";
        }
        return String.format(Locale.ROOT, "churn %s per minute: %d joins (%d joined), %d graceful leaves, %d crashes; "
                + "skipped %d leaves and %d crashes that would have left fewer than %d serving nodes; %d nodes alive "
                + "at the end%n", churn, c.joins(), c.joined(), c.leaves(), c.crashes(), c.skippedLeaves(),
                c.skippedCrashes(), c.minServing(), c.aliveAtEnd());
    }

    /** Reads {@code --churn}; a bad value fails with the reason, as picocli reports any bad option value. */
    static final class ChurnConverter implements CommandLine.ITypeConverter<Churn> {
        @Override
        public Churn convert(String value) {
            try {
                return Churn.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    private static void print(OpenDhtTable.Result result, NodeConfig config) {
        List<OpenDhtTable.Row> rows = result.rows();
        Map<String, double[]> ref = OpenDhtTable.reference();
        double oracleP99 = rows.get(rows.size() - 1).p99Ms();
        System.out.printf(Locale.ROOT, "%n%-16s %6s %6s %7s %8s %8s %6s %7s %8s %6s | %6s %6s %6s %6s%n", "mode",
                "p50", "p90", "p99", "p99.9", "p99/orc", "failed", "msgs", "bytes", "hedges", "paper:", "p50",
                "p99", "msgs");
        for (OpenDhtTable.Row r : rows) {
            double[] p = ref.get(r.mode());
            System.out.printf(Locale.ROOT, "%-16s %6.0f %6.0f %7.0f %8.0f %8.2f %6d %7s %8s %6s | %6s %6s %6s %6s%n",
                    r.mode(), r.p50Ms(), r.p90Ms(), r.p99Ms(), r.p999Ms(), r.p99Ms() / oracleP99, r.failed(),
                    r.msgsPerGet() == null ? "" : String.format(Locale.ROOT, "%.1f", r.msgsPerGet()),
                    r.bytesPerGet() == null ? "" : String.format(Locale.ROOT, "%.0f", r.bytesPerGet()),
                    r.msgsPerGet() == null ? "" : Long.toString(r.hedges()), "",
                    p == null ? "" : String.format(Locale.ROOT, "%.0f", p[0]),
                    p == null ? "" : String.format(Locale.ROOT, "%.0f", p[1]),
                    p == null ? "" : String.format(Locale.ROOT, "%.1f", p[2]));
        }
        System.out.printf(Locale.ROOT, "(ms; k = %d replicas, leaf set %d per side, request timeout %d ms; msgs and "
                + "bytes count everything each get caused, client-gateway legs included, bytes as encoded + %d B "
                + "of headers per message)%n", config.replicas(), config.leafSetHalf(),
                config.requestTimeoutMillis(), io.rattan.api.Cost.HEADER_BYTES);
        System.out.printf(Locale.ROOT, "maintenance: %.2f msgs and %.0f B per node-second%n",
                result.maintenanceMsgsPerNodeSecond(), result.maintenanceBytesPerNodeSecond());
        System.out.print(TableFiles.healthyGatewayLine(rows, result.healthyGatewayP99Ms(),
                result.healthyGatewayRounds()));
    }

    private static String runReport(OpenDhtTable.Result result, double wall, Churn churn) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%nwall time %.1f s, %d events, %.0f events/s, peak heap %d MiB%n", wall,
                result.events(), result.events() / wall, HeapProbe.peakBytes() >> 20));
        b.append("jvm: ").append(HeapProbe.jvm()).append(System.lineSeparator());
        b.append(String.format(Locale.ROOT, "rounds from %.3f ms of the slow trace's time (%s): give real processes the "
                + "same periods with 'rattan bench table --get-phase-from' this directory%n",
                result.getPhaseStartNanos() / 1e6, TableFiles.GET_PHASE_FILE));
        b.append(churnReport(result.churn(), churn));
        long messages = 0;
        for (long n : result.messagesByType().values()) {
            messages += n;
        }
        b.append(String.format(Locale.ROOT, "events of the get phase: %d message deliveries (by type below), the "
                + "rest timers%n", messages));
        for (Map.Entry<MessageType, Long> e : result.messagesByType().entrySet()) {
            b.append(String.format(Locale.ROOT, "  %-20s %10d%n", e.getKey(), e.getValue()));
        }
        return b.toString();
    }
}
