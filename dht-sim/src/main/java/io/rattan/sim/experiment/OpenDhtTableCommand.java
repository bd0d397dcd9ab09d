package io.rattan.sim.experiment;

import io.rattan.core.node.NodeConfig;
import io.rattan.sim.net.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowPeriod;
import io.rattan.sim.net.SlowSchedule;
import io.rattan.sim.net.SlowTrace;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./rattan sim opendht-table}: the OpenDHT study's workload, our figures beside the paper's. */
@Command(name = "opendht-table", mixinStandardHelpOptions = true,
        description = {"Runs the OpenDHT study's workload (Rhea et al., WORLDS 2005) in virtual time: nodes on a "
                + "latency matrix with slow periods, every get performed in every routing mode in random order. "
                + "Prints each mode's latency percentiles beside the paper's, and the oracle lower bound.",
            "Modes so far: greedy and delay-aware, one gateway. Message and byte costs are not counted yet."})
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

    @Option(names = "--slow-fraction", paramLabel = "F", description = "Share of nodes slow at any moment "
            + "(default: ${DEFAULT-VALUE}).")
    double slowFraction = 0.05;

    @Option(names = "--trace", paramLabel = "FILE", description = "Replay this slow-node trace instead of drawing "
            + "one from the model.")
    Path trace;

    @Option(names = "--matrix", paramLabel = "FILE", description = "RTT matrix (TSV, ms). Default: the shipped "
            + "PlanetLab 490-host matrix.")
    Path matrixFile;

    @Option(names = "--seed", paramLabel = "S", description = "Seed for everything (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--out", paramLabel = "DIR", description = "Where table.json, table.csv and trace.txt go "
            + "(default: ${DEFAULT-VALUE}).")
    Path out = Path.of("sim-out");

    @Override
    public Integer call() throws IOException {
        if (nodes < 10 || gets < 1 || values < 1 || getMinutes < 1 || !(slowFraction >= 0 && slowFraction < 1)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "need --nodes >= 10, --gets >= 1, --values >= 1, --get-minutes >= 1, 0 <= --slow-fraction < 1");
        }
        long wallStart = System.nanoTime();
        LatencyMatrix matrix = matrixFile == null ? LatencyMatrix.planetLab() : LatencyMatrix.load(matrixFile);
        SlowNodeModel model = SlowNodeModel.defaults().withSlowFraction(slowFraction);
        // The schedule covers joins, puts and the get phase with room to spare.
        long horizon = (getMinutes + 6L * 60) * 60 * SECOND;
        List<SlowPeriod> periods = trace != null ? SlowTrace.read(trace)
                : slowFraction == 0 ? List.of() : SlowSchedule.generate(model, nodes, horizon, seed);
        Files.createDirectories(out);
        SlowTrace.write(periods, out.resolve("trace.txt"));
        NodeConfig config = OpenDhtTable.experimentConfig();
        OpenDhtTable table = new OpenDhtTable(new OpenDhtTable.Params(nodes, gets, values,
                getMinutes * 60L * SECOND, seed), matrix, periods, config, line -> System.err.println("  " + line));
        System.err.printf(Locale.ROOT, "opendht-table: %d nodes, %d rounds, %d values, slow fraction %.2f%s, "
                + "seed %d%n", nodes, gets, values, slowFraction, trace == null ? "" : " (trace " + trace + ")", seed);
        List<OpenDhtTable.Row> rows = table.run();
        print(rows, config);
        writeJson(rows, out.resolve("table.json"));
        writeCsv(rows, out.resolve("table.csv"));
        double wall = (System.nanoTime() - wallStart) / 1e9;
        System.out.printf(Locale.ROOT, "%nwall time %.1f s, %d events, %.0f events/s, peak heap %d MiB; wrote %s%n",
                wall, table.events(), table.events() / wall, peakHeapMiB(), out.toAbsolutePath());
        return 0;
    }

    private static void print(List<OpenDhtTable.Row> rows, NodeConfig config) {
        Map<String, double[]> ref = OpenDhtTable.reference();
        double oracleP99 = rows.get(rows.size() - 1).p99Ms();
        System.out.printf(Locale.ROOT, "%n%-14s %7s %7s %8s %8s %9s %7s | %9s %9s | %s%n", "mode", "p50 ms",
                "p90 ms", "p99 ms", "p99.9 ms", "p99/orcl", "failed", "paper p50", "paper p99", "msgs/get");
        for (OpenDhtTable.Row r : rows) {
            double[] p = ref.get(r.mode());
            System.out.printf(Locale.ROOT, "%-14s %7.0f %7.0f %8.0f %8.0f %9.2f %7d | %9s %9s | %s%n", r.mode(),
                    r.p50Ms(), r.p90Ms(), r.p99Ms(), r.p999Ms(), r.p99Ms() / oracleP99, r.failed(),
                    p == null ? "" : String.format(Locale.ROOT, "%.0f", p[0]),
                    p == null ? "" : String.format(Locale.ROOT, "%.0f", p[1]), "not counted yet");
        }
        System.out.printf(Locale.ROOT, "(k = %d replicas, leaf set %d per side, request timeout %d ms)%n",
                config.replicas(), config.leafSetHalf(), config.requestTimeoutMillis());
    }

    private static void writeJson(List<OpenDhtTable.Row> rows, Path file) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.println("[");
            for (int i = 0; i < rows.size(); i++) {
                OpenDhtTable.Row r = rows.get(i);
                w.printf(Locale.ROOT, "  {\"mode\": \"%s\", \"gets\": %d, \"p50_ms\": %.3f, \"p90_ms\": %.3f, "
                        + "\"p99_ms\": %.3f, \"p999_ms\": %.3f, \"msgs_per_get\": null, \"bytes_per_get\": null, "
                        + "\"failed\": %d}%s%n", r.mode(), r.gets(), r.p50Ms(), r.p90Ms(), r.p99Ms(), r.p999Ms(),
                        r.failed(), i + 1 < rows.size() ? "," : "");
            }
            w.println("]");
        }
    }

    private static void writeCsv(List<OpenDhtTable.Row> rows, Path file) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.println("mode,gets,p50_ms,p90_ms,p99_ms,p999_ms,msgs_per_get,bytes_per_get,failed");
            for (OpenDhtTable.Row r : rows) {
                w.printf(Locale.ROOT, "%s,%d,%.3f,%.3f,%.3f,%.3f,,,%d%n", r.mode(), r.gets(), r.p50Ms(), r.p90Ms(),
                        r.p99Ms(), r.p999Ms(), r.failed());
            }
        }
    }

    private static long peakHeapMiB() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak >> 20;
    }
}
