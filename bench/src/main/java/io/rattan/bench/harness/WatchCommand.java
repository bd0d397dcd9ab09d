package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.bench.cluster.ClusterFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code rattan bench watch}: how soon a watch hears a put (issue 37's targets: event p99 at most 20 ms on 16
 * processes), against Rattan's binary RPC or OpenDHT's proxy listen, and what idle watches cost the nodes.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, showDefaultValues = true, sortOptions = false,
        description = {"Measures watches: --watchers watches spread over the gateways (watch i through gateway i mod "
                + "G), --watchers-per-key of them on each key, each on another gateway; then --puts puts at --rate "
                + "a second, each to a random watched key, through any gateway. An event's latency runs from the "
                + "put's acknowledgement to the watch hearing it (an event heard before the acknowledgement, which "
                + "a replica's push can be, counts as 0 and is counted apart), and apart from the put's start.",
            "With --idle-watches M (Rattan only): M more watches, each on a key of its own, over the binary RPC, "
                + "and the nodes' CPU and RSS measured over --idle with them against before them.",
            "Writes OUT/watch.json and OUT/watch.txt."},
        footer = {"", "Examples:",
            "  rattan cluster start --nodes 16 --dir /tmp/c16",
            "  rattan bench watch --cluster /tmp/c16 --watchers 160 --puts 3000 --rate 100 --out runs/watch",
            "  rattan bench watch --cluster /tmp/c16 --watchers 0 --idle-watches 100000 --out runs/watch-idle",
            "  rattan bench watch --target opendht --gateways 127.0.0.1:24100,... --watchers 160 --out runs/odht",
            "", "Exit codes: 0 done, 1 failed (the cluster is not running, or watches never became ready), "
                + "2 bad usage."})
public final class WatchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--cluster", paramLabel = "D", description = "A running Rattan cluster's directory.")
    Path cluster;

    @Option(names = "--target", paramLabel = "rattan|opendht", description = "What to measure.")
    String target = "rattan";

    @Option(names = "--api", paramLabel = "binary|http",
            description = "With --target rattan: watch over the binary RPC, or over HTTP as server-sent events (a "
                    + "connection each). Puts go over the binary RPC either way.")
    String api = "binary";

    @Option(names = "--gateways", split = ",", paramLabel = "HOST:PORT",
            description = "With --target opendht: the proxies ('dhtnode --proxyserver PORT').")
    List<String> gateways = List.of();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where watch.json and watch.txt go.")
    Path out;

    @Option(names = "--watchers", paramLabel = "N", description = "Watches whose events are timed.")
    int watchers = 160;

    @Option(names = "--watchers-per-key", paramLabel = "W", description = "Watches of each key (at most G).")
    int perKey = 4;

    @Option(names = "--watch-gateways", paramLabel = "G",
            description = "Spread the timed watches over the first G gateways only (0: all), e.g. 1 to load one.")
    int watchGateways;

    @Option(names = "--puts", paramLabel = "P", description = "Timed puts, after --warmup-puts untimed ones.")
    int puts = 2000;

    @Option(names = "--warmup-puts", paramLabel = "P", description = "Puts before the timed ones, not counted.")
    int warmupPuts = 200;

    @Option(names = "--rate", paramLabel = "R", description = "Puts a second (open loop).")
    int rate = 50;

    @Option(names = "--value-bytes", paramLabel = "B", description = "Size of every value.")
    int valueBytes = 1000;

    @Option(names = "--ttl", paramLabel = "T", converter = DurationConverter.class,
            description = "Every value's TTL (OpenDHT's proxy ignores it: 10 minutes).")
    Duration ttl = Duration.ofMinutes(10);

    @Option(names = "--idle-watches", paramLabel = "M", description = "Watches whose idle cost is measured.")
    int idleWatches;

    @Option(names = "--idle", paramLabel = "T", converter = DurationConverter.class,
            description = "How long the nodes' idle CPU is measured, before and with the idle watches.")
    Duration idle = Duration.ofSeconds(60);

    @Option(names = "--timeout", paramLabel = "T", converter = DurationConverter.class,
            description = "The client's timeout per operation, and how long watches may take to become ready "
                    + "(times 10 for the idle watches).")
    Duration timeout = Duration.ofSeconds(10);

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter log = spec.commandLine().getOut();
        boolean opendht = target.equals("opendht");
        check(opendht);
        List<Address> endpoints;
        List<Address> httpEndpoints = List.of();
        NodeCpu cpu = null;
        try {
            if (opendht) {
                endpoints = gateways.stream().map(Address::parse).toList();
            } else {
                List<ClusterFiles.NodeAddresses> nodes = ClusterFiles.nodes(cluster);
                endpoints = nodes.stream().map(ClusterFiles.NodeAddresses::rpc).toList();
                httpEndpoints = nodes.stream().map(ClusterFiles.NodeAddresses::http).toList();
                cpu = NodeCpu.of(cluster, nodes.size());
            }
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return ExitCodes.FAILED;
        }
        Files.createDirectories(out);
        ObjectNode report = new ObjectMapper().createObjectNode();
        StringBuilder text = new StringBuilder();
        try (WatchTarget t = opendht ? new OpenDhtListens(endpoints, timeout) : api.equals("http")
                ? new SseWatches(httpEndpoints, endpoints, timeout) : new RattanWatches(endpoints, timeout)) {
            report.put("target", target);
            report.put("api", opendht ? "http" : api);
            report.put("gateways", t.gateways());
            if (watchers > 0 && !latency(t, cpu, log, report, text)) {
                return ExitCodes.FAILED;
            }
            if (idleWatches > 0 && !IdleWatches.measure(t, cpu, idleWatches, idle, timeout.multipliedBy(10), log,
                    report, text)) {
                return ExitCodes.FAILED;
            }
        }
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out.resolve("watch.json").toFile(), report);
        Files.writeString(out.resolve("watch.txt"), text, StandardCharsets.UTF_8);
        log.print(text);
        log.flush();
        return 0;
    }

    private void check(boolean opendht) {
        String problem = null;
        if (!opendht && !target.equals("rattan")) {
            problem = "--target must be rattan or opendht, got " + target;
        } else if (opendht == gateways.isEmpty() || opendht == (cluster != null)) {
            problem = "give --cluster for rattan, --gateways (the proxies) for opendht";
        } else if (!api.equals("binary") && !api.equals("http")) {
            problem = "--api must be binary or http, got " + api;
        } else if (opendht && idleWatches > 0) {
            problem = "--idle-watches measures Rattan's nodes only";
        } else if (watchers < 0 || watchGateways < 0 || perKey < 1 || puts < 1 || rate < 1 || warmupPuts < 0 || idleWatches < 0
                || valueBytes < 16 || valueBytes > 64 * 1024) {
            problem = "--watchers and --idle-watches at least 0, --watchers-per-key, --puts and --rate at least 1, "
                    + "--value-bytes 16..65536";
        }
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
    }

    /** The timed watches and puts; false when the watches never became ready. */
    private boolean latency(WatchTarget t, NodeCpu cpu, PrintWriter log, ObjectNode report, StringBuilder text)
            throws InterruptedException {
        int spread = watchGateways > 0 ? Math.min(watchGateways, t.gateways()) : t.gateways();
        int perKeyHere = Math.min(perKey, spread);
        int keys = Math.max(1, watchers / perKeyHere);
        WatchLatency latency = new WatchLatency();
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        String run = Long.toHexString(System.nanoTime());
        List<Id> keyIds = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            Id key = Id.ofName("bench-watch-" + run + "-" + k);
            keyIds.add(key);
            for (int w = 0; w < perKeyHere; w++) {
                int watcher = w;
                ready.add(t.watch((k + w) % spread, key, v -> latency.heard(watcher, v)));
            }
        }
        log.println("opening " + ready.size() + " watches on " + keys + " keys ...");
        log.flush();
        try {
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(timeout.toMillis() * 3,
                    TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            spec.commandLine().getErr().println("the watches did not all become ready: " + e);
            return false;
        }
        PutLoop loop = new PutLoop(t, keyIds, latency, perKeyHere, valueBytes, (int) ttl.toSeconds());
        log.println("putting " + warmupPuts + " values untimed, then " + puts + " at " + rate + "/s ...");
        log.flush();
        loop.run(warmupPuts, rate, false);
        long heardBefore = latency.heard();
        long nodeCpu0 = cpu == null ? 0 : cpu.totalNanos();
        long ownCpu0 = NodeCpu.ownNanos();
        long t0 = System.nanoTime();
        loop.run(puts, rate, true);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double nodeCores = cpu == null ? Double.NaN : (cpu.totalNanos() - nodeCpu0) / 1e9 / seconds;
        double ownCores = (NodeCpu.ownNanos() - ownCpu0) / 1e9 / seconds;
        // The last events come after the last acknowledgements; wait for them a while.
        long deadline = System.nanoTime() + timeout.toNanos();
        while (latency.heard() - heardBefore < (long) puts * perKeyHere && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        WatchLatency.Figures f = latency.figures(perKeyHere);
        describe(f, ready.size(), keys, perKeyHere, report, text);
        report.with("latency").put("nodeCores", nodeCores).put("benchCores", ownCores)
                .put("putsFailed", loop.failed());
        text.append(String.format(Locale.ROOT, "during the timed puts: the nodes used %.2f cores, this process %.2f "
                + "(the machine has %d); %d puts failed%n", nodeCores, ownCores,
                Runtime.getRuntime().availableProcessors(), loop.failed()));
        return true;
    }

    private void describe(WatchLatency.Figures f, int watches, int keys, int perKeyHere, ObjectNode report,
                          StringBuilder text) {
        ObjectNode l = report.putObject("latency");
        l.put("watches", watches);
        l.put("keys", keys);
        l.put("watchersPerKey", perKeyHere);
        l.put("rate", rate);
        l.put("putsAcknowledged", f.putsAcked());
        l.put("eventsOwed", f.eventsOwed());
        l.put("eventsHeard", f.eventsHeard());
        l.put("heardBeforeAck", f.heardBeforeAck());
        l.put("duplicates", f.duplicates());
        for (String from : List.of("fromAck", "fromStart")) {
            Histogram h = from.equals("fromAck") ? f.fromAck() : f.fromStart();
            ObjectNode m = l.putObject(from + "Millis");
            m.put("p50", f.millis(h, 50));
            m.put("p99", f.millis(h, 99));
            m.put("p99.9", f.millis(h, 99.9));
            m.put("max", h.getMaxValue() / 1000.0);
        }
        text.append(String.format(Locale.ROOT, "%s over %s, %d gateways: %d watches on %d keys (%d each), %d puts/s of %d "
                        + "bytes%n", target, report.get("api").asText(), report.get("gateways").asInt(), watches, keys, perKeyHere, rate,
                valueBytes));
        text.append(String.format(Locale.ROOT, "events: %d of %d heard (%d before the put's acknowledgement, %d "
                + "duplicates)%n", f.eventsHeard(), f.eventsOwed(), f.heardBeforeAck(), f.duplicates()));
        text.append(String.format(Locale.ROOT, "event latency from the acknowledgement, ms: p50 %.2f  p99 %.2f  "
                        + "p99.9 %.2f  max %.2f%n", f.millis(f.fromAck(), 50), f.millis(f.fromAck(), 99),
                f.millis(f.fromAck(), 99.9), f.fromAck().getMaxValue() / 1000.0));
        text.append(String.format(Locale.ROOT, "event latency from the put's start, ms:    p50 %.2f  p99 %.2f  "
                        + "p99.9 %.2f  max %.2f%n", f.millis(f.fromStart(), 50), f.millis(f.fromStart(), 99),
                f.millis(f.fromStart(), 99.9), f.fromStart().getMaxValue() / 1000.0));
    }
}
