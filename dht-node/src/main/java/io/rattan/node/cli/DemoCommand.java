package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code rattan demo}: starts a local cluster, puts values under random keys through random gateways, reads each
 * back through another random gateway, and reports what it saw. Exits 0 only if every get returned exactly the value
 * that was put.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Starts a local cluster in a temporary directory, puts values under distinct random keys "
                + "through random gateways, gets each back through a random gateway and checks it is exactly the "
                + "value put. Prints put and get latency percentiles, hops per get and values stored per node.",
            "Exits 0 only if every get returned exactly its value. The small default leaf set makes gets "
                + "really route rather than find every node one hop away."})
final class DemoCommand implements Callable<Integer> {

    /** Requests in flight at once across all gateways. */
    static final int IN_FLIGHT_MAX = 32;
    /** Most puts one demo makes. */
    static final int PUTS_MAX = 100_000;
    /** TTL of the demo's values: long enough to outlive any demo. */
    static final Duration VALUE_TTL = Duration.ofHours(1);
    /** Values are 1..this many random bytes (capped by the node's limit). */
    static final int VALUE_BYTES_DEMO_MAX = 256;

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Option(names = "--nodes", paramLabel = "N", description = "Nodes in the cluster (1..64).")
    int nodes = 8;

    @Option(names = "--puts", paramLabel = "N", description = "Values to put and get back (1..100000).")
    int puts = 1000;

    // 3 per side is the smallest leaf set that holds the default k = 4 replicas; with 8 nodes it is not a full mesh,
    // so gets really route.
    @Option(names = "--leaf-set-half", paramLabel = "N", description = "Leaf-set members on each side (1..32).")
    int leafSetHalf = 3;

    @Option(names = "--seed", paramLabel = "S",
            description = "Seed for keys, values and gateway choices. Default: a random seed, printed.")
    Long seed;

    NodeConfig config() {
        if (nodes < 1 || nodes > LocalCommand.NODES_MAX) {
            throw new ParameterException(spec.commandLine(),
                    "--nodes must be 1.." + LocalCommand.NODES_MAX + ", got " + nodes);
        }
        if (puts < 1 || puts > PUTS_MAX) {
            throw new ParameterException(spec.commandLine(), "--puts must be 1.." + PUTS_MAX + ", got " + puts);
        }
        try {
            return NodeConfigs.forCluster(leafSetHalf, nodes);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        NodeConfig config = config();
        logging.apply(Level.WARN);
        long s = seed != null ? seed : new SplittableRandom().nextLong();
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "rattan demo: %d nodes, leaf set %d per side, k=%d, W=%d, %d puts, seed %d%n",
                nodes, config.leafSetHalf(), config.replicas(), config.writeQuorum(), puts, s);
        out.flush();

        long wallStart = System.nanoTime();
        Path dir = TempDirs.create("rattan-demo-");
        Report report;
        try {
            LocalCluster cluster = LocalCluster.start(nodes, dir, config);
            try {
                out.printf(Locale.ROOT, "cluster up in %.2f s%n", seconds(System.nanoTime() - wallStart));
                out.flush();
                report = run(cluster, config, new SplittableRandom(s), out);
            } finally {
                cluster.close();
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
        report.print(out, seconds(System.nanoTime() - wallStart));
        out.flush();
        return report.allGetsExact() ? 0 : RattanCli.EXIT_FAILED;
    }

    private Report run(LocalCluster cluster, NodeConfig config, SplittableRandom random, PrintWriter out)
            throws InterruptedException {
        List<RattanClient> clients = new ArrayList<>();
        try {
            for (RattanNode node : cluster.nodes()) {
                clients.add(RattanClient.builder().gateway(Addresses.of(node.gatewayAddress())).build());
            }
            Id[] keys = new Id[puts];
            byte[][] values = new byte[puts][];
            int valueBytesMax = Math.min(VALUE_BYTES_DEMO_MAX, config.valueBytesMax());
            for (int i = 0; i < puts; i++) {
                keys[i] = Id.random(random);
                values[i] = new byte[1 + random.nextInt(valueBytesMax)];
                random.nextBytes(values[i]);
            }
            Report report = new Report(puts);
            Semaphore inFlight = new Semaphore(IN_FLIGHT_MAX);
            for (int i = 0; i < puts; i++) {
                RattanClient client = clients.get(random.nextInt(clients.size()));
                inFlight.acquire();
                long start = System.nanoTime();
                CompletableFuture<?> put = client.put(keys[i], values[i], VALUE_TTL);
                put.whenComplete((r, e) -> {
                    report.put(System.nanoTime() - start, e == null);
                    inFlight.release();
                });
            }
            inFlight.acquire(IN_FLIGHT_MAX);
            inFlight.release(IN_FLIGHT_MAX);
            out.printf(Locale.ROOT, "put %d values%n", puts);
            out.flush();
            for (int i = 0; i < puts; i++) {
                RattanClient client = clients.get(random.nextInt(clients.size()));
                Bytes expected = Bytes.wrap(values[i]);
                inFlight.acquire();
                long start = System.nanoTime();
                client.get(keys[i]).whenComplete((r, e) -> {
                    report.get(System.nanoTime() - start, r, e, expected);
                    inFlight.release();
                });
            }
            inFlight.acquire(IN_FLIGHT_MAX);
            inFlight.release(IN_FLIGHT_MAX);
            for (RattanNode node : cluster.nodes()) {
                report.stored(node.status().storedRecords());
            }
            return report;
        } finally {
            for (RattanClient c : clients) {
                c.close();
            }
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** What the demo saw; recorded from the clients' event loops, so every method is synchronized. */
    static final class Report {
        private final int puts;
        private final Histogram putNanos = new Histogram(3);
        private final Histogram getNanos = new Histogram(3);
        private int putsOk;
        private int putsFailed;
        private int getsOk;
        private int getsFailed;
        private int getsMismatched;
        private int getsEmpty;
        private long hopsTotal;
        private int hopsMax;
        private final List<Long> storedPerNode = new ArrayList<>();

        Report(int puts) {
            this.puts = puts;
        }

        synchronized void put(long nanos, boolean ok) {
            putNanos.recordValue(nanos);
            if (ok) {
                putsOk++;
            } else {
                putsFailed++;
            }
        }

        /** A failed get counts at the time it took to fail, in every percentile. */
        synchronized void get(long nanos, GetResult result, Throwable error, Bytes expected) {
            getNanos.recordValue(nanos);
            if (error != null) {
                getsFailed++;
                return;
            }
            hopsTotal += result.hops();
            hopsMax = Math.max(hopsMax, result.hops());
            boolean exact = result.values().size() == 1 && result.values().get(0).value().equals(expected);
            if (exact) {
                getsOk++;
            } else {
                getsMismatched++;
                if (result.values().isEmpty()) {
                    getsEmpty++;
                }
            }
        }

        synchronized void stored(long records) {
            storedPerNode.add(records);
        }

        synchronized boolean allGetsExact() {
            return getsOk == puts;
        }

        synchronized void print(PrintWriter out, double wallSeconds) {
            out.printf(Locale.ROOT, "puts: %d ok, %d failed; latency ms p50 %.2f p99 %.2f%n",
                    putsOk, putsFailed, ms(putNanos, 50), ms(putNanos, 99));
            out.printf(Locale.ROOT, "gets: %d ok, %d failed, %d mismatched (%d of them empty); latency ms p50 %.2f "
                            + "p90 %.2f p99 %.2f max %.2f%n",
                    getsOk, getsFailed, getsMismatched, getsEmpty, ms(getNanos, 50), ms(getNanos, 90),
                    ms(getNanos, 99), getNanos.getTotalCount() == 0 ? 0.0 : getNanos.getMaxValue() / 1e6);
            int answered = getsOk + getsMismatched;
            out.printf(Locale.ROOT, "hops per get: mean %.2f, max %d%n",
                    answered == 0 ? 0.0 : (double) hopsTotal / answered, hopsMax);
            long min = storedPerNode.stream().mapToLong(Long::longValue).min().orElse(0);
            long max = storedPerNode.stream().mapToLong(Long::longValue).max().orElse(0);
            double mean = storedPerNode.stream().mapToLong(Long::longValue).average().orElse(0);
            out.printf(Locale.ROOT, "values stored per node (replicas included): min %d, mean %.1f, max %d%n",
                    min, mean, max);
            out.printf(Locale.ROOT, "wall time %.2f s%n", wallSeconds);
            out.println(allGetsExact()
                    ? "OK: every get returned exactly the value put"
                    : "FAILED: " + (puts - getsOk) + " of " + puts + " gets did not return exactly their value");
        }

        private static double ms(Histogram h, double percentile) {
            return h.getTotalCount() == 0 ? 0.0 : h.getValueAtPercentile(percentile) / 1e6;
        }
    }
}
