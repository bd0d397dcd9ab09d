package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rattan local}: a cluster of nodes in this process on loopback, until SIGINT or SIGTERM. */
@Command(name = "local",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Runs a cluster of nodes in this process on 127.0.0.1 with free ports, and prints each node's "
                + "addresses. Runs until SIGINT or SIGTERM, then closes every node gracefully.",
            "Try it: rattan put --gateway <a gateway below> name:hello world; "
                + "curl http://<an http address below>/v1/keys/name:hello"})
final class LocalCommand implements Callable<Integer> {

    /** Most nodes one process runs; each has its own event loop and RocksDB instance. */
    static final int NODES_MAX = 64;

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Option(names = "--nodes", paramLabel = "N", description = "How many nodes (1..64).")
    int nodes = 8;

    @Option(names = "--base-dir", paramLabel = "DIR",
            description = "Where node i keeps its data (DIR/node-i), kept afterwards. "
                    + "Default: a temporary directory, deleted at exit.")
    Path baseDir;

    @Option(names = "--leaf-set-half", paramLabel = "N", description = "Leaf-set members on each side (1..32).")
    int leafSetHalf = NodeConfig.defaults().leafSetHalf();

    NodeConfig config() {
        if (nodes < 1 || nodes > NODES_MAX) {
            throw new ParameterException(spec.commandLine(), "--nodes must be 1.." + NODES_MAX + ", got " + nodes);
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
        PrintWriter out = spec.commandLine().getOut();
        Path dir = baseDir != null ? baseDir : TempDirs.create("rattan-local-");
        boolean temporary = baseDir == null;
        out.println("starting " + nodes + " nodes in " + dir + " …");
        out.flush();
        LocalCluster cluster;
        try {
            cluster = LocalCluster.start(nodes, dir, config);
        } catch (Exception e) {
            if (temporary) {
                TempDirs.deleteQuietly(dir);
            }
            throw e;
        }
        printTable(out, cluster.nodes());
        out.println("all " + nodes + " nodes joined; Ctrl-C to stop");
        out.flush();
        return UntilStopped.await(out, () -> {
            try {
                cluster.close();
            } finally {
                if (temporary) {
                    TempDirs.deleteQuietly(dir);
                }
            }
        });
    }

    static void printTable(PrintWriter out, List<RattanNode> nodes) {
        String format = "%-4s %-10s %-22s %-22s %s%n";
        out.printf(format, "#", "id", "peer", "gateway", "http");
        for (int i = 0; i < nodes.size(); i++) {
            RattanNode n = nodes.get(i);
            out.printf(format, i, n.contact().id().shortHex(), n.contact().address(),
                    Addresses.of(n.gatewayAddress()), Addresses.of(n.httpAddress()));
        }
    }
}
