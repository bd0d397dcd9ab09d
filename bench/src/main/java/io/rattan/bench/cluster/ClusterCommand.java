package io.rattan.bench.cluster;

import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.node.process.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code rattan cluster}: runs N node processes on one host under a directory, and stops, kills, restarts, pauses
 * and slows them. Each subcommand is a short-lived process; the nodes outlive it.
 */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        description = {"Runs a cluster of Rattan node processes on this host, one data dir, one pid file and fixed "
                + "ports per node, all under one directory D.",
            "D/gateways.txt lists the nodes in index order, one per line: host:rpcPort host:httpPort "
                + "(what 'rattan bench run --cluster D' reads). Node i is line i, counted from 0."},
        subcommands = {
            ClusterCommand.Start.class,
            ClusterCommand.Stop.class,
            ClusterCommand.Status.class,
            ClusterCommand.Kill.class,
            ClusterCommand.Restart.class,
            ClusterCommand.Pause.class,
            ClusterCommand.Resume.class,
            ClusterCommand.Slow.class,
            StartsCommand.class,
        },
        footer = {"", "Example:",
            "  rattan cluster start --nodes 16 --dir /tmp/c16 --leaf-set-half 2",
            "  rattan cluster slow --dir /tmp/c16 --fraction 0.125 --stop-ms 300 --period-ms 1000 --duration 10m",
            "  rattan cluster stop --dir /tmp/c16"})
public final class ClusterCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The directory option every subcommand takes. */
    abstract static class DirCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--dir", required = true, paramLabel = "D", description = "The cluster's directory.")
        Path dir;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }

        ProcessCluster open() throws IOException {
            return ProcessCluster.open(dir, out());
        }

        /** Runs {@code body}, turning a cluster failure into its message on stderr and exit 1. */
        int report(ClusterAction body) throws IOException {
            try {
                body.run();
                return 0;
            } catch (ClusterException e) {
                err().println("error: " + e.getMessage());
                err().flush();
                return ExitCodes.FAILED;
            }
        }
    }

    /** A cluster operation that may fail with a message for the user. */
    interface ClusterAction {
        void run() throws ClusterException, IOException;
    }

    /** A subcommand on one node: checks the index, acts, and prints what it did. */
    abstract static class NodeCommand extends DirCommand {
        @Option(names = "--node", required = true, paramLabel = "I", description = "The node's index, from 0.")
        int node;

        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = open();
            checkIndex(spec, cluster, node);
            return report(() -> {
                out().println("node " + node + " " + act(cluster));
                out().flush();
            });
        }

        /** Does the subcommand's work on {@link #node}; returns what happened, e.g. "paused". */
        abstract String act(ProcessCluster cluster) throws ClusterException, IOException;
    }

    @Command(name = "start", mixinStandardHelpOptions = true, showDefaultValues = true,
            description = {"Starts N node processes on HOST and returns once every one answers GET /ready with 200. "
                    + "If one does not in time (or exits), it says which and why, stops them all, and exits 1.",
                "Node i uses ports BASE+3i (peer), BASE+3i+1 (binary gateway) and BASE+3i+2 (HTTP), kept across "
                    + "restarts. Node 0 founds the overlay; the others join through it.",
                "Options it does not know are given to every node, e.g. --leaf-set-half 2 --replicas 3 "
                    + "(see 'rattan node --help'); --host, --port, --gateway-port, --http-port, --data-dir and "
                    + "--bootstrap are set by the tool.",
                "With --slow-trace FILE (a slow-node trace, the simulator's format) node i replays the trace's lines "
                    + "for index i; every node counts the trace's times from the moment this command ran.",
                "With --wan MATRIX each node is placed on a host of the matrix as the simulator places N nodes with "
                    + "the seed --wan-seed, and delays every frame it sends to a peer by half the round trip between "
                    + "their hosts plus the simulator's jitter (the tool gives node i --wan-node i and every node's "
                    + "address in --wan-peers). Clients are not delayed: they sit on their gateway's host. It emulates "
                    + "delay only, not bandwidth or loss (docs/measuring.md).",
                "With --keys FILE (the simulator's keys.txt) node i starts with the key on line i, and so with the "
                    + "simulated node's id (its public key's hash), so that keys have the simulated world's roots and "
                    + "replicas."})
    static class Start extends DirCommand {
        @Option(names = "--nodes", required = true, paramLabel = "N", description = "How many node processes.")
        int nodes;

        @Option(names = "--host", paramLabel = "HOST", description = "Address every node binds and advertises.")
        String host = "127.0.0.1";

        @Option(names = "--base-port", paramLabel = "BASE", description = "Node 0's peer port.")
        int basePort = 7400;

        @Option(names = "--heap", paramLabel = "SIZE", description = "Each node's maximum heap (-Xmx).")
        String heap = "192m";

        @Option(names = "--jvm-opt", paramLabel = "FLAG",
                description = "A further JVM flag for every node (repeatable; the first replaces the default). "
                        + "Default: the serial collector and a 16 MiB initial heap, which suit many small JVMs on "
                        + "few cores; the JDK's tiered compilation. -XX:TieredStopAtLevel=1 (C1 only) starts a "
                        + "cluster about 25%% sooner but serves half as fast once warm (docs/performance.md). "
                        + "-Xshare:off turns class-data sharing off.")
        List<String> jvmOpts = new ArrayList<>(List.of("-XX:+UseSerialGC", "-Xms16m"));

        @Option(names = "--node-jar", paramLabel = "JAR",
                description = "The runnable jar the nodes run from. Default: the jar this command runs from "
                        + "(./rattan's bench jar holds the node).")
        Path nodeJar;

        @Option(names = "--java", paramLabel = "PATH", description = "The java executable for the nodes. "
                + "Default: the one running this command.")
        String java;

        @Option(names = "--ready-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How long all nodes together have to become ready, e.g. 90s or 3m.")
        Duration readyTimeout = Duration.ofMinutes(3);

        @Option(names = "--wan", paramLabel = "MATRIX",
                description = "Emulate a wide area: a latency matrix file in the simulator's format, or "
                        + "'planetlab' for the 490-host PlanetLab matrix shipped with Rattan. Default: none.")
        String wan;

        @Option(names = "--wan-seed", paramLabel = "S",
                description = "Seeds which host each node is on (as the simulator's --seed does) and the jitter. "
                        + "Default: 1.")
        Long wanSeed;

        @Option(names = "--keys", paramLabel = "FILE",
                description = "Node i's key is line i of FILE (an Ed25519 seed, 64 hex digits; '#' lines skipped), "
                        + "e.g. the keys.txt of 'rattan sim opendht-table'; its id follows (SHA-1 of the public key). "
                        + "For trials only: such keys are not secret. Default: each node draws its own.")
        Path keys;

        @Option(names = "--tls",
                description = "Mutual TLS between the nodes: a CA in DIR/ca (made once) and a certificate of each "
                        + "node's key, renewed at each start; the nodes get --tls-ca DIR/ca/ca.crt. For trials and "
                        + "measurements: the CA's key lies beside the nodes. Clients are unchanged.")
        boolean tls;

        @Unmatched
        List<String> nodeOptions = new ArrayList<>();

        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = ProcessCluster.create(dir, clusterSpec(), out());
            return report(() -> {
                if (keys != null) {
                    cluster.giveKeys(keys);
                }
                if (tls) {
                    cluster.certify();
                }
                cluster.start(readyTimeout);
                out().println(nodes + " nodes ready; gateways in " + dir.toAbsolutePath().resolve(
                        ProcessCluster.GATEWAYS_FILE));
                out().flush();
            });
        }

        /** The cluster's spec from the flags; a usage error when they do not make sense together. */
        ClusterSpec clusterSpec() {
            for (String o : nodeOptions) {
                if (o.startsWith("-") && !o.startsWith("--")) {
                    throw new ParameterException(spec.commandLine(), "unknown option " + o);
                }
            }
            if (ClusterSpec.hasOption(nodeOptions, ClusterSpec.SLOW_TRACE)
                    && !ClusterSpec.hasOption(nodeOptions, ClusterSpec.SLOW_TRACE_START)) {
                // One clock for every node's trace, kept across restarts (the spec is saved with it).
                nodeOptions.add(ClusterSpec.SLOW_TRACE_START);
                nodeOptions.add(Long.toString(System.currentTimeMillis()));
            }
            try {
                if (wan != null) {
                    nodeOptions.addAll(List.of(ClusterSpec.WAN, ClusterSpec.wanMatrix(wan), ClusterSpec.WAN_SEED,
                            Long.toString(wanSeed == null ? 1 : wanSeed)));
                } else if (wanSeed != null) {
                    throw new IllegalArgumentException("--wan-seed needs --wan");
                }
                if (tls) {
                    nodeOptions.addAll(List.of("--tls-ca", ProcessCluster.caCertificate(dir).toString()));
                }
                return new ClusterSpec(nodes, host, basePort, heap, jar(), javaPath(), jvmOpts, nodeOptions);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
        }

        private Path jar() {
            if (nodeJar != null) {
                if (!Files.isRegularFile(nodeJar)) {
                    throw new ParameterException(spec.commandLine(), "--node-jar " + nodeJar + " is not a file");
                }
                return nodeJar;
            }
            try {
                Path self = Path.of(ClusterCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                if (Files.isRegularFile(self) && self.toString().endsWith(".jar")) {
                    return self;
                }
            } catch (URISyntaxException | SecurityException e) {
                // Fall through to the usage error below.
            }
            throw new ParameterException(spec.commandLine(), "not running from a jar: give --node-jar, e.g. "
                    + "dht-node/target/dht-node-<version>-all.jar");
        }

        private String javaPath() {
            if (java != null) {
                return java;
            }
            return ProcessHandle.current().info().command().orElse("java");
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stops every node: SIGTERM (each hands its values over and exits), then SIGKILL to any "
                    + "still running 10 s later. A pid is signalled only while /proc/PID/cmdline names that node's "
                    + "data dir.")
    static final class Stop extends DirCommand {
        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = open();
            List<Integer> running = cluster.running();
            cluster.stopAll();
            out().println("stopped " + running.size() + " nodes " + running);
            out().flush();
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Prints each node's pid, resident memory (RSS) and whether it answers /ready.")
    static final class Status extends DirCommand {
        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = open();
            int ready = 0;
            for (int i = 0; i < cluster.spec().nodes(); i++) {
                OptionalLong pid = cluster.process(i).livePid();
                String why = cluster.readiness(i);
                out().println("node " + i + ": " + (pid.isPresent() ? "pid " + pid.getAsLong() + ", rss "
                        + NodeProcess.rssKib(pid.getAsLong()) / 1024 + " MiB" : "no process")
                        + ", http " + cluster.spec().http(i) + ", " + (why == null ? "ready" : why));
                ready += why == null ? 1 : 0;
            }
            out().println(ready + " of " + cluster.spec().nodes() + " ready");
            out().flush();
            return ready == cluster.spec().nodes() ? 0 : ExitCodes.FAILED;
        }
    }

    @Command(name = "kill", mixinStandardHelpOptions = true,
            description = "SIGKILLs one node: it sends nothing before it dies (a crash, not a leave).")
    static final class Kill extends NodeCommand {
        @Override
        String act(ProcessCluster cluster) throws ClusterException {
            cluster.kill(node);
            return "killed";
        }
    }

    @Command(name = "restart", mixinStandardHelpOptions = true, showDefaultValues = true,
            description = "Stops one node if it runs (as stop does), starts it again on the same ports and data "
                    + "dir, joining through the other nodes, and waits for its /ready.")
    static final class Restart extends NodeCommand {
        @Option(names = "--ready-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How long the node has to become ready.")
        Duration readyTimeout = Duration.ofMinutes(2);

        @Override
        String act(ProcessCluster cluster) throws ClusterException, IOException {
            cluster.restart(node, readyTimeout);
            return "restarted and ready";
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = "SIGSTOPs one node: it keeps its sockets but answers nothing until resumed.")
    static final class Pause extends NodeCommand {
        @Override
        String act(ProcessCluster cluster) throws ClusterException {
            signal(cluster, node, "STOP");
            return "paused";
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = "SIGCONTs one node, or every node without --node (e.g. after a 'slow' that was "
                    + "SIGKILLed).")
    static final class Resume extends DirCommand {
        @Option(names = "--node", paramLabel = "I", description = "The node's index, from 0. Default: all.")
        Integer node;

        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = open();
            if (node == null) {
                int n = 0;
                for (int i = 0; i < cluster.spec().nodes(); i++) {
                    n += cluster.process(i).signal("CONT") ? 1 : 0;
                }
                out().println(n + " nodes resumed");
                out().flush();
                return 0;
            }
            checkIndex(spec, cluster, node);
            return report(() -> {
                signal(cluster, node, "CONT");
                out().println("node " + node + " resumed");
                out().flush();
            });
        }
    }

    @Command(name = "slow", mixinStandardHelpOptions = true, showDefaultValues = true,
            description = {"Makes a fraction of the nodes slow, in the foreground: every period it pauses them "
                    + "(SIGSTOP) for the stop time, then lets them run (SIGCONT). All chosen nodes pause together.",
                "When it ends, however it ends (duration over, Ctrl-C, SIGTERM), every node is resumed. Only a "
                    + "SIGKILL of this command leaves nodes paused: then run 'rattan cluster resume --dir D'."})
    static final class Slow extends DirCommand {
        @Option(names = "--fraction", required = true, paramLabel = "F",
                description = "Share of the nodes to slow, 0 < F <= 1 (rounded, at least one node).")
        double fraction;

        @Option(names = "--nodes", split = ",", paramLabel = "I",
                description = "Slow exactly these nodes instead of a random choice (--fraction is then ignored).")
        List<Integer> nodes;

        @Option(names = "--stop-ms", required = true, paramLabel = "S", description = "Paused time per period.")
        long stopMs;

        @Option(names = "--period-ms", required = true, paramLabel = "P", description = "Length of a period.")
        long periodMs;

        @Option(names = "--duration", required = true, paramLabel = "T", converter = DurationConverter.class,
                description = "How long to keep it up, e.g. 90s, 10m, 2h.")
        Duration duration;

        @Option(names = "--seed", paramLabel = "SEED", description = "Seeds the choice of nodes.")
        long seed = 1;

        @Override
        public Integer call() throws IOException {
            ProcessCluster cluster = open();
            List<Integer> chosen = choose(cluster.spec().nodes());
            SlowInjector injector;
            try {
                injector = new SlowInjector(cluster, chosen, Duration.ofMillis(stopMs), Duration.ofMillis(periodMs),
                        out());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            out().println("slowing nodes " + chosen + ": paused " + stopMs + " ms of every " + periodMs + " ms for "
                    + DurationConverter.format(duration));
            out().flush();
            injector.run(duration);
            return 0;
        }

        private List<Integer> choose(int n) {
            if (nodes != null && !nodes.isEmpty()) {
                for (int i : nodes) {
                    if (i < 0 || i >= n) {
                        throw new ParameterException(spec.commandLine(), "--nodes: no node " + i + " (0.." + (n - 1)
                                + ")");
                    }
                }
                return List.copyOf(nodes);
            }
            if (!(fraction > 0 && fraction <= 1)) {
                throw new ParameterException(spec.commandLine(), "--fraction must be in (0, 1], got " + fraction);
            }
            int count = Math.max(1, (int) Math.round(fraction * n));
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                all.add(i);
            }
            Collections.shuffle(all, new Random(seed));
            List<Integer> picked = new ArrayList<>(all.subList(0, count));
            Collections.sort(picked);
            return picked;
        }
    }

    static void signal(ProcessCluster cluster, int node, String signal) throws ClusterException {
        if (!cluster.process(node).signal(signal)) {
            throw new ClusterException("node " + node + " is not running");
        }
    }

    static void checkIndex(CommandSpec spec, ProcessCluster cluster, int node) {
        try {
            cluster.checkIndex(node);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
