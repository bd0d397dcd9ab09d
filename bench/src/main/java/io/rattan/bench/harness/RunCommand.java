package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Address;
import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.bench.cluster.ClusterFiles;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rattan bench run}: measures a live deployment; see the command's description. */
@Command(name = "run", mixinStandardHelpOptions = true, showDefaultValues = true, sortOptions = false,
        description = {"Puts a population of keys, then gets them in every selected mode, interleaved, checking "
                + "every answer's content, while re-putting values before they expire. Writes everything to --out "
                + "as it goes (latency.hlog in HdrHistogram's log format, counts.csv, the nodes' /metrics before "
                + "and after), prints a live line, and at the end (or on Ctrl-C/SIGTERM) the table, summary.json, "
                + "PNG plots and report.html ('rattan bench report' rebuilds them for any time window).",
            "Open loop (--rate): Poisson arrivals, modes in successive random permutations, latency from the "
                + "intended start (corrected, as wrk2 does) and from the send (uncorrected). Closed loop "
                + "(--workers): each worker runs rounds of all modes back to back in a fresh random order. "
                + "Neither given: open loop at " + RunCommand.DEFAULT_RATE + " gets/s, and it says so.",
            "A failed, timed-out or wrong get counts at least at --timeout in every percentile."},
        footer = {"", "Modes: greedy, delay-aware, delay-aware-<G>gw, iterative-<P>, iterative-<P>-<G>gw, hedged, "
                + "one-hop, one-hop-hedged (any base may take -<G>gw and a one-hop- prefix), or all: every mode the "
                + "target performs (over --api http all but iterative-<P>-<G>gw; with --target opendht the one "
                + "mode, opendht: the complete get, to the end of the proxy's stream).",
            "", "Examples:",
            "  rattan bench run --cluster /tmp/c16 --rate 500 --duration 12m --warmup 2m --out runs/c16",
            "  rattan bench run --gateways 10.0.0.1:4001,10.0.0.2:4001 --workers 4 --modes greedy,hedged "
                + "--duration 1h --max-p99 200ms --out runs/prod",
            "", "Exit codes: 0 done, 1 failed, 2 bad usage, 3 a --max-* threshold was missed."})
public final class RunCommand implements Callable<Integer> {

    /** The load when neither --rate nor --workers is given: open loop, light enough for any target to keep up. */
    static final int DEFAULT_RATE = 50;

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Where where;

    /** The deployment: a local cluster's directory, or gateway addresses. */
    static final class Where {
        @Option(names = "--cluster", paramLabel = "D", description = "A cluster started by 'rattan cluster start "
                + "--dir D': its gateways (all nodes) and /metrics.")
        Path cluster;

        @Option(names = "--gateways", split = ",", paramLabel = "HOST:PORT",
                description = "Gateway addresses: binary RPC ports for --api binary, HTTP ports for --api http "
                        + "or --target opendht.")
        List<String> gateways;
    }

    @Option(names = "--api", paramLabel = "binary|http", description = "How to talk to Rattan's gateways.")
    String api = "binary";

    @Option(names = "--target", paramLabel = "rattan|opendht",
            description = "What the gateways are: Rattan, or OpenDHT's REST proxy (dhtnode --proxyserver).")
    String targetKind = "rattan";

    @Option(names = "--metrics", split = ",", paramLabel = "HOST:PORT",
            description = "HTTP addresses of the nodes whose /metrics to read before and after the load. Default: "
                    + "every node of --cluster; with --api http, the --gateways.")
    List<String> metrics;

    @Option(names = "--out", required = true, paramLabel = "RUN_DIR", description = "Where the run writes.")
    Path out;

    @Option(names = "--modes", split = ",", paramLabel = "MODE",
            description = "Get modes, interleaved; all: every mode the target performs (see below).")
    List<String> modes = new ArrayList<>(List.of("all"));

    @Option(names = "--rate", paramLabel = "GETS_PER_S", description = "Open loop: total gets per second. "
            + "Default, when --workers is not given either: " + DEFAULT_RATE + ".")
    Double rate;

    @Option(names = "--workers", paramLabel = "C", description = "Closed loop: callers running back to back.")
    Integer workers;

    @Option(names = "--connections", paramLabel = "N",
            description = "Open loop: most gets in flight; a send waits for a free one. Also bounds puts in flight.")
    int connections = 32;

    @Option(names = "--duration", paramLabel = "T", converter = DurationConverter.class,
            description = "How long the gets run, warm-up included: 30s .. days.")
    Duration duration = Duration.ofMinutes(1);

    @Option(names = "--warmup", paramLabel = "T", converter = DurationConverter.class,
            description = "Left out of the final table and summary (still in the logs).")
    Duration warmup = Duration.ZERO;

    @Option(names = "--keys", paramLabel = "N", description = "Keys in the population.")
    int keys = 1000;

    @Option(names = "--values-per-key", paramLabel = "N", description = "Values under each key.")
    int valuesPerKey = 1;

    @Option(names = "--value-bytes", paramLabel = "B", description = "Size of each value (at least 24).")
    int valueBytes = 128;

    @Option(names = "--ttl", paramLabel = "T", converter = DurationConverter.class,
            description = "The values' TTL; each is re-put after half of it.")
    Duration ttl = Duration.ofMinutes(10);

    @Option(names = "--absent-share", paramLabel = "F", description = "Share of gets for keys nobody put.")
    double absentShare = 0.05;

    @Option(names = "--timeout", paramLabel = "T", converter = DurationConverter.class,
            description = "Per get and put; longer is a timeout.")
    Duration timeout = Duration.ofSeconds(5);

    @Option(names = "--retries", paramLabel = "N", description = "Binary API: the client's retries on another "
            + "gateway within --timeout. Default: the client's default.")
    Integer retries;

    @Option(names = "--interval", paramLabel = "T", converter = DurationConverter.class,
            description = "How often measurements go to disk.")
    Duration interval = Duration.ofSeconds(1);

    @Option(names = "--live-every", paramLabel = "T", converter = DurationConverter.class,
            description = "How often the live line is printed.")
    Duration liveEvery = Duration.ofSeconds(5);

    @Option(names = "--seed", paramLabel = "SEED", description = "Seeds keys, arrivals and mode order.")
    long seed = 1;

    @Option(names = "--max-p50", paramLabel = "T", converter = DurationConverter.class,
            description = "Exit 3 if any mode's p50 (after the warm-up) is above this.")
    Duration maxP50;

    @Option(names = "--max-p99", paramLabel = "T", converter = DurationConverter.class,
            description = "Exit 3 if any mode's p99 is above this, e.g. 200ms.")
    Duration maxP99;

    @Option(names = "--max-p999", paramLabel = "T", converter = DurationConverter.class,
            description = "Exit 3 if any mode's p99.9 is above this.")
    Duration maxP999;

    @Option(names = "--max-error-share", paramLabel = "F",
            description = "Exit 3 if any mode's share of failed gets (timeout, error, wrong) is above this.")
    Double maxErrorShare;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * The run's configuration from the flags and what {@code target} performs, adding to {@code notes} which
     * defaults it chose; an IllegalArgumentException when the flags do not make sense together.
     */
    private HarnessConfig config(Target target, List<String> notes) {
        if (targetKind.equals("opendht") && ttl.compareTo(OpenDhtTarget.VALUE_LIFETIME) > 0) {
            throw new IllegalArgumentException("--ttl: OpenDHT keeps a value " + OpenDhtTarget.VALUE_LIFETIME
                    .toMinutes() + " minutes and its REST API takes no TTL; give at most 10m");
        }
        List<GetMode> getModes = GetMode.parseList(modes, target.modes());
        if (modes.contains("all") && targetKind.equals("rattan")) {
            notes.addAll(modesLeftOut(target));
        }
        double openRate = rate == null ? 0 : rate;
        if (rate == null && workers == null) {
            openRate = DEFAULT_RATE;
            notes.add("no --rate or --workers given: open loop at " + DEFAULT_RATE + " gets/s in total");
        }
        return new HarnessConfig(getModes, keys, valuesPerKey, valueBytes, ttl, absentShare, openRate,
                connections, workers == null ? 0 : workers, duration, warmup, interval, liveEvery, timeout, seed);
    }

    /** The modes that {@code --modes all} leaves out because the API cannot perform them, each with why. */
    private List<String> modesLeftOut(Target target) {
        List<String> leftOut = new ArrayList<>();
        for (GetMode m : GetMode.all()) {
            if (!target.modes().contains(m)) {
                leftOut.add("--modes all over --api " + api + " leaves out " + m.name() + ": " + target.refuses(m));
            }
        }
        return leftOut;
    }

    @Override
    public Integer call() throws IOException {
        PrintStream stdout = System.out;
        List<Address> rpc = new ArrayList<>();
        List<Address> http = new ArrayList<>();
        List<Address> metricsNodes = new ArrayList<>();
        resolveAddresses(rpc, http, metricsNodes);
        String runId = UUID.randomUUID().toString().substring(0, 8);
        Target target = target(rpc, http);
        HarnessConfig config;
        Harness harness;
        List<String> notes = new ArrayList<>();
        try {
            config = config(target, notes);
            harness = new Harness(config, target, out, runId, stdout);
        } catch (IllegalArgumentException e) {
            target.close();
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        notes.forEach(stdout::println);
        Files.createDirectories(out);
        ObjectNode info = runInfo(config, runId, rpc, http);
        writeRunJson(info);
        CountDownLatch reported = new CountDownLatch(1);
        // Ctrl-C or SIGTERM: stop the load and let this thread write the report before the JVM exits.
        Thread hook = new Thread(() -> {
            harness.requestStop();
            try {
                reported.await(2 * timeout.toSeconds() + 60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rattan-bench-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runAndReport(harness, target, metricsNodes, info, stdout);
        } finally {
            reported.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down: the hook is running and has just been released.
            }
        }
    }

    /** Runs the load with the nodes' counters read before and after, then writes the report; the exit code. */
    private int runAndReport(Harness harness, Target target, List<Address> metricsNodes, ObjectNode info,
                             PrintStream stdout) throws IOException {
        StringBuilder scrapeLog = new StringBuilder();
        NodeScrape.scrape(metricsNodes, out, "start", scrapeLog);
        try {
            harness.run();
        } finally {
            target.close();
        }
        NodeScrape.scrape(metricsNodes, out, "end", scrapeLog);
        stdout.print(scrapeLog);
        info.put("startMillis", harness.startMillis());
        info.put("loadStartSeconds", harness.loadStartSeconds());
        info.put("loadEndSeconds", harness.loadEndSeconds());
        info.put("stoppedEarly", harness.stopRequested());
        writeRunJson(info);
        RunReport.Outcome outcome = RunReport.write(out, null, null, stdout);
        return outcome.missed().isEmpty() ? 0 : ExitCodes.THRESHOLD_MISSED;
    }

    private void resolveAddresses(List<Address> rpc, List<Address> http, List<Address> metricsNodes)
            throws IOException {
        if (!api.equals("binary") && !api.equals("http")) {
            throw new ParameterException(spec.commandLine(), "--api must be binary or http, got " + api);
        }
        if (where.cluster != null) {
            for (ClusterFiles.NodeAddresses n : ClusterFiles.nodes(where.cluster)) {
                rpc.add(n.rpc());
                http.add(n.http());
            }
            metricsNodes.addAll(http);
        } else {
            List<Address> given = parse(where.gateways, "--gateways");
            boolean httpish = api.equals("http") || !targetKind.equals("rattan");
            (httpish ? http : rpc).addAll(given);
            if (httpish && targetKind.equals("rattan")) {
                metricsNodes.addAll(given);
            }
        }
        if (metrics != null) {
            metricsNodes.clear();
            metricsNodes.addAll(parse(metrics, "--metrics"));
        }
    }

    private List<Address> parse(List<String> addresses, String option) {
        List<Address> list = new ArrayList<>();
        for (String a : addresses) {
            try {
                list.add(Address.parse(a.trim()));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), option + ": '" + a + "' is not host:port");
            }
        }
        return list;
    }

    private Target target(List<Address> rpc, List<Address> http) {
        switch (targetKind) {
            case "rattan":
                return api.equals("http") ? new HttpTarget(http, timeout) : new BinaryTarget(rpc, timeout, retries);
            case "opendht":
                if (where.cluster != null) {
                    throw new ParameterException(spec.commandLine(), "--target opendht needs --gateways (the "
                            + "proxies' HTTP ports), not --cluster");
                }
                return new OpenDhtTarget(http, timeout);
            default:
                throw new ParameterException(spec.commandLine(), "--target must be rattan or opendht, got "
                        + targetKind);
        }
    }

    private ObjectNode runInfo(HarnessConfig config, String runId, List<Address> rpc, List<Address> http)
            throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("command", "rattan bench run " + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
        o.put("runId", runId);
        o.put("commit", commit());
        o.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        o.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        o.put("cores", Runtime.getRuntime().availableProcessors());
        o.put("startMillis", System.currentTimeMillis());
        o.put("warmupSeconds", warmup.toMillis() / 1000.0);
        o.put("intervalSeconds", interval.toMillis() / 1000.0);
        ArrayNode m = o.putArray("modes");
        config.modes().forEach(x -> m.add(x.name()));
        ObjectNode t = o.putObject("target");
        t.put("kind", targetKind);
        t.put("api", api);
        ArrayNode g = t.putArray("gateways");
        (api.equals("http") || !targetKind.equals("rattan") ? http : rpc).forEach(a -> g.add(a.toString()));
        if (where.cluster != null) {
            ObjectNode c = t.putObject("cluster");
            c.put("dir", where.cluster.toAbsolutePath().toString());
            c.put("nodes", rpc.size());
            List<String> opts = ClusterFiles.nodeOptions(where.cluster);
            ArrayNode a = c.putArray("nodeOptions");
            opts.forEach(a::add);
            NodeConfig d = NodeConfig.defaults();
            c.put("leafSetHalf", option(opts, "--leaf-set-half", Integer.toString(d.leafSetHalf())));
            c.put("replicas", option(opts, "--replicas", "default (4, or leaf-set-half+1 if smaller)"));
            c.put("writeQuorum", option(opts, "--write-quorum", "default (2, or replicas if smaller)"));
        }
        ObjectNode l = o.putObject("load");
        l.put("loop", config.openLoop() ? "open" : "closed");
        l.put("rate", config.rate());
        l.put("connections", connections);
        l.put("workers", config.workers());
        l.put("durationSeconds", duration.toMillis() / 1000.0);
        l.put("timeoutSeconds", timeout.toMillis() / 1000.0);
        l.put("seed", seed);
        ObjectNode p = o.putObject("population");
        p.put("keys", keys);
        p.put("valuesPerKey", valuesPerKey);
        p.put("valueBytes", valueBytes);
        p.put("ttlSeconds", ttl.toSeconds());
        p.put("absentShare", absentShare);
        ObjectNode th = o.putObject("thresholds");
        if (maxP50 != null) {
            th.put("maxP50Ms", maxP50.toNanos() / 1e6);
        }
        if (maxP99 != null) {
            th.put("maxP99Ms", maxP99.toNanos() / 1e6);
        }
        if (maxP999 != null) {
            th.put("maxP999Ms", maxP999.toNanos() / 1e6);
        }
        if (maxErrorShare != null) {
            th.put("maxErrorShare", maxErrorShare);
        }
        return o;
    }

    /** The value given to {@code name} among the node options, or {@code fallback}. */
    private static String option(List<String> opts, String name, String fallback) {
        for (int i = 0; i < opts.size(); i++) {
            if (opts.get(i).equals(name) && i + 1 < opts.size()) {
                return opts.get(i + 1);
            }
            if (opts.get(i).startsWith(name + "=")) {
                return opts.get(i).substring(name.length() + 1);
            }
        }
        return fallback;
    }

    private void writeRunJson(ObjectNode info) throws IOException {
        Files.writeString(out.resolve(RunReport.RUN_JSON), JSON.writeValueAsString(info), StandardCharsets.UTF_8);
    }

    /** The commit of the working directory's repository, with "-dirty" for uncommitted changes; else "unknown". */
    private static String commit() {
        try {
            Process p = new ProcessBuilder("git", "describe", "--always", "--dirty", "--abbrev=12")
                    .redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !text.isEmpty()) {
                return text.toLowerCase(Locale.ROOT);
            }
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "unknown";
    }
}
