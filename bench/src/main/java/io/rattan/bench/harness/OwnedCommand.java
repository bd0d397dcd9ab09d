package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.bench.cluster.ClusterFiles;
import io.rattan.client.OwnerKey;
import io.rattan.client.RattanClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code rattan bench owned}: owned puts and gets against unowned ones, side by side in one run on a running cluster
 * (issue 36's targets: CPU per owned put at most 1.5 times an unowned one's, saturation throughput of owned puts at
 * least 0.67 times). Phases of each kind alternate, the order flipped every round, so that a drift of the machine
 * falls on both.
 */
@Command(name = "owned", mixinStandardHelpOptions = true, showDefaultValues = true, sortOptions = false,
        description = {"Measures owned values against unowned ones on a cluster started by './rattan cluster start': "
                + "closed-loop phases of puts, then of gets, each kind in turn, the order flipped every round. "
                + "An owned put is signed in this process (Ed25519) and checked by every replica; an owned get's "
                + "value is checked here before it counts. Each phase reports operations per second (with "
                + "--workers in flight, the machine's saturation throughput), the nodes' CPU per operation (every "
                + "node process's CPU time over the phase) and this process's.",
            "Writes OUT/owned.json (every phase, the medians of each kind and the ratios owned/unowned) and "
                + "OUT/owned.txt."},
        footer = {"", "Example:",
            "  rattan cluster start --nodes 16 --dir /tmp/c16",
            "  rattan bench owned --cluster /tmp/c16 --workers 64 --phase 20s --rounds 3 --out runs/owned",
            "", "Exit codes: 0 done, 1 failed (e.g. the cluster is not running), 2 bad usage."})
public final class OwnedCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--cluster", required = true, paramLabel = "D",
            description = "A running cluster's directory ('rattan cluster start --dir D').")
    Path cluster;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where owned.json and owned.txt go.")
    Path out;

    @Option(names = "--workers", paramLabel = "C", description = "Operations in flight in every phase.")
    int workers = 64;

    @Option(names = "--phase", paramLabel = "T", converter = DurationConverter.class,
            description = "How long each phase lasts.")
    Duration phase = Duration.ofSeconds(15);

    @Option(names = "--warmup", paramLabel = "T", converter = DurationConverter.class,
            description = "Before the rounds, each kind of put and get runs this long unmeasured (JIT, caches).")
    Duration warmup = Duration.ofSeconds(20);

    @Option(names = "--idle", paramLabel = "T", converter = DurationConverter.class,
            description = "After the warm-up, how long the nodes' own CPU use is measured with no load.")
    Duration idle = Duration.ofSeconds(10);

    @Option(names = "--rounds", paramLabel = "N", description = "Rounds; each runs one phase of each kind.")
    int rounds = 3;

    @Option(names = "--keys", paramLabel = "N", description = "Keys of each kind, for puts and for gets.")
    int keys = 1000;

    @Option(names = "--value-bytes", paramLabel = "B", description = "Size of every value.")
    int valueBytes = 1000;

    @Option(names = "--timeout", paramLabel = "T", converter = DurationConverter.class,
            description = "The client's timeout per operation.")
    Duration timeout = Duration.ofSeconds(5);

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter log = spec.commandLine().getOut();
        String problem = workers < 1 || rounds < 1 || keys < 1 || valueBytes < 16 || valueBytes > 64 * 1024
                || warmup.isNegative() || idle.isNegative() ? "--workers, --rounds and --keys must be at least 1, "
                + "--value-bytes 16..65536, --warmup and --idle not negative" : null;
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        List<ClusterFiles.NodeAddresses> nodes;
        NodeCpu cpu;
        try {
            nodes = ClusterFiles.nodes(cluster);
            cpu = NodeCpu.of(cluster, nodes.size());
        } catch (IOException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return ExitCodes.FAILED;
        }
        Files.createDirectories(out);
        List<Address> gateways = nodes.stream().map(ClusterFiles.NodeAddresses::rpc).toList();
        try (RattanClient client = RattanClient.builder().gateways(gateways).attemptTimeout(timeout)
                .totalTimeout(timeout).build()) {
            Calls calls = new Calls(client, OwnerKey.generate(), keys, valueBytes, workers);
            log.println("putting " + keys + " values of each kind for the gets ...");
            log.flush();
            calls.populate();
            warmUp(log, calls, cpu);
            double idleRate = cpu.coresOver(idle);
            log.printf(Locale.ROOT, "the nodes idle use %.2f CPU seconds per second%n", idleRate);
            ClosedLoop loop = new ClosedLoop(workers, phase, cpu);
            List<ClosedLoop.Phase> phases = new ArrayList<>();
            for (String op : List.of("put", "get")) {
                for (int round = 1; round <= rounds; round++) {
                    boolean ownedFirst = round % 2 == 0;
                    for (boolean owned : new boolean[] {ownedFirst, !ownedFirst}) {
                        ClosedLoop.Phase p = loop.run(op, owned, round, calls.of(op, owned));
                        log.println(p.line());
                        log.flush();
                        phases.add(p);
                    }
                }
            }
            String report = write(phases, nodes.size(), idleRate);
            log.print(report);
            log.flush();
        }
        return 0;
    }

    /** Each kind of put and get for {@link #warmup}, unmeasured: the nodes' JIT and caches settle first. */
    private void warmUp(PrintWriter log, Calls calls, NodeCpu cpu) throws InterruptedException {
        if (warmup.isZero()) {
            return;
        }
        log.println("warming up: " + warmup.toSeconds() + " s of each kind, unmeasured ...");
        log.flush();
        ClosedLoop warm = new ClosedLoop(workers, warmup, cpu);
        for (String op : List.of("put", "get")) {
            for (boolean owned : new boolean[] {false, true}) {
                warm.run(op, owned, 0, calls.of(op, owned));
            }
        }
    }

    /** Writes owned.json and owned.txt; the text. */
    private String write(List<ClosedLoop.Phase> phases, int nodeCount, double idle) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("nodes", nodeCount);
        root.put("workers", workers);
        root.put("phaseSeconds", phase.toMillis() / 1000.0);
        root.put("rounds", rounds);
        root.put("valueBytes", valueBytes);
        root.put("idleNodeCpuSecondsPerSecond", idle);
        ArrayNode all = root.putArray("phases");
        phases.forEach(p -> all.add(p.json(json)));
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "%d nodes, %d in flight, %d rounds of %.0f s phases, %d-byte values"
                + " (medians over the rounds); idle, the nodes use %.2f CPU s per s, included below%n", nodeCount,
                workers, rounds, phase.toMillis() / 1000.0, valueBytes, idle));
        ObjectNode medians = root.putObject("medians");
        for (String op : List.of("put", "get")) {
            ClosedLoop.Median unowned = ClosedLoop.Median.of(phases, op, false);
            ClosedLoop.Median owned = ClosedLoop.Median.of(phases, op, true);
            ObjectNode m = medians.putObject(op);
            m.set("unowned", unowned.json(json));
            m.set("owned", owned.json(json));
            ObjectNode ratio = m.putObject("ownedOverUnowned");
            ratio.put("opsPerSecond", owned.opsPerSecond() / unowned.opsPerSecond());
            ratio.put("nodeCpuPerOp", owned.nodeCpuMicrosPerOp() / unowned.nodeCpuMicrosPerOp());
            ratio.put("clientCpuPerOp", owned.clientCpuMicrosPerOp() / unowned.clientCpuMicrosPerOp());
            ratio.put("totalCpuPerOp", owned.totalCpuMicrosPerOp() / unowned.totalCpuMicrosPerOp());
            text.append(unowned.line(op + " unowned")).append(owned.line(op + " owned  "));
            text.append(String.format(Locale.ROOT, "%s owned/unowned: throughput %.2f x, node CPU per op %.2f x, "
                    + "client CPU per op %.2f x, all CPU per op %.2f x%n", op, ratio.get("opsPerSecond").asDouble(),
                    ratio.get("nodeCpuPerOp").asDouble(), ratio.get("clientCpuPerOp").asDouble(),
                    ratio.get("totalCpuPerOp").asDouble()));
        }
        json.writerWithDefaultPrettyPrinter().writeValue(out.resolve("owned.json").toFile(), root);
        Files.writeString(out.resolve("owned.txt"), text, StandardCharsets.UTF_8);
        return text.toString();
    }

    /** The operations each phase runs: an owned or unowned put of a fresh value, or a get of a populated key. */
    private static final class Calls {
        private final RattanClient client;
        private final OwnerKey owner;
        private final int keys;
        private final int valueBytes;
        /** Per worker: its value id's next sequence; a worker writes its own value id only, so no two collide. */
        private final AtomicLong[] seqs;
        private final AtomicLong serial = new AtomicLong();

        Calls(RattanClient client, OwnerKey owner, int keys, int valueBytes, int workers) {
            this.client = client;
            this.owner = owner;
            this.keys = keys;
            this.valueBytes = valueBytes;
            this.seqs = new AtomicLong[workers];
            for (int w = 0; w < workers; w++) {
                seqs[w] = new AtomicLong();
            }
        }

        private static Id key(String kind, long i) {
            return Id.ofName("bench-owned-" + kind + "-" + i);
        }

        /** A value no put has used: a serial number, padded to the size. */
        private byte[] value() {
            byte[] v = new byte[valueBytes];
            byte[] id = Long.toString(serial.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(id, 0, v, 0, id.length);
            return v;
        }

        private static Instant expiry() {
            return Instant.now().plus(Duration.ofMinutes(30));
        }

        /** One value under each get key of each kind: the owned ones as value id 0, sequence 1. */
        void populate() {
            List<CompletableFuture<?>> window = new ArrayList<>();
            for (int i = 0; i < keys; i++) {
                window.add(client.put(key("get-unowned", i), value(), Duration.ofMinutes(30)));
                window.add(client.putOwned(key("get-owned", i), value(), owner, 0, 1, expiry()));
                if (window.size() >= 128) {
                    window.forEach(CompletableFuture::join);
                    window.clear();
                }
            }
            window.forEach(CompletableFuture::join);
        }

        ClosedLoop.Call of(String op, boolean owned) {
            if (op.equals("get")) {
                String kind = owned ? "get-owned" : "get-unowned";
                return (w, n) -> client.get(key(kind, n % keys)).thenApply(r -> {
                    if (r.values().size() != 1 || r.values().get(0).isOwned() != owned) {
                        throw new IllegalStateException("expected one " + (owned ? "owned" : "unowned")
                                + " value, got " + r.values().size());
                    }
                    return r;
                });
            }
            if (!owned) {
                return (w, n) -> client.put(key("put-unowned", n % keys), value(), Duration.ofMinutes(30));
            }
            return (w, n) -> client.putOwned(key("put-owned", n % keys), value(), owner, w,
                    seqs[w].incrementAndGet(), expiry());
        }
    }
}
