package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.slow.SlowTrace;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.TableFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rattan bench table}: the simulator's OpenDHT table, measured on a running local cluster. */
@Command(name = "table", mixinStandardHelpOptions = true, showDefaultValues = true, sortOptions = false,
        description = {"Runs the OpenDHT study's workload of './rattan sim opendht-table' against a cluster started "
                + "by './rattan cluster start': the same modes, the same values put (kept for a day) and the same "
                + "rounds for the same seed (each round's time, its client's node and gateways, its key and its "
                + "mode order). Each round's client uses its node as gateway (modes with more gateways also the "
                + "round's other nodes) and performs every mode's get in the round's order, one after another; a "
                + "get succeeds only with exactly the value put, and a failed one counts at --timeout.",
            "If the cluster replays a slow trace (cluster start --slow-trace), its periods are re-armed to count "
                + "from this command's start, as the simulator's count from its world's.",
            "Writes OUT/table.json and table.csv (the simulator's format: mode, gets, p50/p90/p99/p99.9 ms, "
                + "msgs/get, bytes/get, failed, hedges; the oracle row last), gets.csv (every get, as the "
                + "simulator's: join the two on round_ms and mode), nodes.json (the nodes' own counters "
                + "over the run) and run.txt. msgs and bytes per get: each copy's client request and reply, and "
                + "what the nodes on its path counted in band, for every copy that answered, winner or not."},
        footer = {"", "To compare with the simulator, give it the cluster's size, seed, gets, minutes and values:",
            "  rattan cluster start --nodes 16 --dir /tmp/c16 --leaf-set-half 2 --replicas 8",
            "  rattan bench table --cluster /tmp/c16 --seed 7 --gets 200 --get-minutes 10 --out runs/table-real",
            "  rattan sim opendht-table --nodes 16 --seed 7 --gets 200 --get-minutes 10 --out runs/table-sim",
            "", "Exit codes: 0 done, 1 failed (e.g. the cluster is not running), 2 bad usage."})
public final class TableCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--cluster", required = true, paramLabel = "D",
            description = "A running cluster's directory ('rattan cluster start --dir D').")
    Path cluster;

    @Option(names = "--seed", paramLabel = "S", description = "Seed of the values and rounds (the simulator's).")
    long seed = 1;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where table.json and the rest go.")
    Path out;

    @Option(names = "--gets", paramLabel = "M", description = "Get rounds; each runs every mode.")
    int gets = 200;

    @Option(names = "--get-minutes", paramLabel = "MIN",
            description = "Minutes the rounds are spread over, as a Poisson process (decimals allowed).")
    double getMinutes = 10;

    @Option(names = "--values", paramLabel = "V", description = "Values put before the rounds.")
    int values = 200;

    @Option(names = "--modes", split = ",", paramLabel = "LIST", description = "Only these modes, in this order "
            + "(default: the simulator's table: greedy, delay-aware, delay-aware-2gw, delay-aware-3gw, iterative-3, "
            + "iterative-3-2gw, hedged, one-hop-hedged; also hedged-escalating).")
    List<String> only;

    @Option(names = "--timeout", paramLabel = "T", converter = DurationConverter.class,
            description = "The request timeout a failed get counts at (default: the cluster's own "
                    + "--request-timeout-ms); the client gives up a second later.")
    Duration timeout;

    @Option(names = "--settle", paramLabel = "T", converter = DurationConverter.class,
            description = "Wait between the puts and the rounds (the one-hop warm-up), as the simulator's world runs "
                    + "30 s for its tables to settle; 0s for a quick check.")
    Duration settle = Duration.ofNanos(OpenDhtTable.SETTLE_NANOS);

    @Option(names = "--get-phase-at", paramLabel = "MS",
            description = "Where in the cluster's slow trace the rounds start, in ms: the simulator's run.txt says "
                    + "where its rounds started. The nodes' trace is re-armed just before the first round, so that the "
                    + "rounds meet the same slow periods as the simulator's. Default: the trace counts from this "
                    + "command's start, before the puts.")
    Double getPhaseAtMs;

    @Option(names = "--get-phase-from", paramLabel = "SIMDIR",
            description = "As --get-phase-at, with the time read from the get-phase.txt that 'rattan sim "
                    + "opendht-table --out SIMDIR' wrote: the rounds then meet the simulator's slow periods.")
    Path getPhaseFrom;

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<OpenDhtTable.Mode> modes = validate();
        PrintWriter log = spec.commandLine().getErr();
        try {
            return run(modes, log);
        } catch (IOException e) {
            // The cluster is missing, not running or not joined: a sentence says which and what to do.
            log.println("error: " + e.getMessage());
            log.flush();
            return ExitCodes.FAILED;
        }
    }

    private int run(List<OpenDhtTable.Mode> modes, PrintWriter log) throws IOException, InterruptedException {
        long getPhaseAtNanos = getPhaseAtMs != null ? (long) (getPhaseAtMs * 1e6)
                : getPhaseFrom != null ? TableFiles.readGetPhase(getPhaseFrom.resolve(TableFiles.GET_PHASE_FILE)) : -1;
        TableCluster c = TableCluster.read(cluster);
        Files.createDirectories(out);
        long wallStart = System.nanoTime();
        long zeroMillis = System.currentTimeMillis();
        List<SlowPeriod> trace = List.of();
        if (getPhaseAtNanos >= 0 && c.slowTrace() == null) {
            throw new IOException("--get-phase-at and --get-phase-from place the rounds in the cluster's slow trace, "
                    + "and " + cluster + " was started without --slow-trace");
        }
        if (c.slowTrace() != null) {
            // The table's own time 0: the nodes' periods count from now, as the simulator's from its world's start.
            SlowTraceArm.arm(c.http(), zeroMillis);
            trace = readTrace(c.slowTrace(), log);
        }
        log.printf(Locale.ROOT, "bench table: %d nodes (k = %d), %d rounds x %d modes over %.2f min, %d values, "
                + "seed %d%s%n", c.size(), c.replicas(), gets, modes.size(), getMinutes, values, seed,
                c.slowTrace() == null ? "" : ", slow trace " + c.slowTrace() + " armed now");
        NodeScrape.scrape(c.http(), out, "start", log);
        long timeoutNanos = timeout != null ? timeout.toNanos() : c.requestTimeoutNanos();
        TableRun run = new TableRun(c, modes, seed, gets, values, (long) (getMinutes * 60e9), timeoutNanos,
                settle.toNanos(), trace, wallStart, getPhaseAtNanos, log);
        TableRun.Result result = run.run();
        List<OpenDhtTable.Row> rows = result.rows();
        NodeScrape.scrape(c.http(), out, "end", log);
        TableFiles.writeJson(rows, out.resolve("table.json"));
        TableFiles.writeCsv(rows, out.resolve("table.csv"));
        result.gets().write(out.resolve("gets.csv"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(out.resolve("nodes.json").toFile(), NodeCounters.read(out));
        String report = TableReport.text(result, c, seed, (System.nanoTime() - wallStart) / 1e9);
        Files.writeString(out.resolve("run.txt"), report);
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.print(report);
        stdout.println("wrote " + out.toAbsolutePath());
        stdout.flush();
        return 0;
    }

    private List<OpenDhtTable.Mode> validate() {
        if (gets < 1 || values < 1 || !(getMinutes > 0)
                || timeout != null && (timeout.isZero() || timeout.isNegative()) || settle.isNegative()
                || getPhaseAtMs != null && !(getPhaseAtMs >= 0 && getPhaseAtMs < 1e12)) {
            throw new ParameterException(spec.commandLine(), "need --gets >= 1, --values >= 1, --get-minutes > 0, "
                    + "a positive --timeout, a --settle of 0s or more and a --get-phase-at of 0 ms or more");
        }
        if (getPhaseAtMs != null && getPhaseFrom != null) {
            throw new ParameterException(spec.commandLine(), "give --get-phase-at or --get-phase-from, not both");
        }
        try {
            return OpenDhtTable.modesNamed(only);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The trace's periods, for the oracle; a trace this process cannot read only costs the oracle its slow nodes. */
    private static List<SlowPeriod> readTrace(Path file, PrintWriter log) {
        try {
            return SlowTrace.read(file);
        } catch (IOException e) {
            log.println("  cannot read the slow trace " + file + " (" + e.getMessage() + "): the oracle counts "
                    + "every replica as healthy");
            return List.of();
        }
    }
}
