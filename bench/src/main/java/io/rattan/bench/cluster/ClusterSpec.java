package io.rattan.bench.cluster;

import io.rattan.api.Address;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.node.process.NodeLaunch;
import io.rattan.node.process.NodePorts;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * What a local cluster was started with, kept in {@code D/cluster.properties} so that {@code restart} launches a
 * node exactly as {@code start} did: same ports, heap, jar and node options.
 *
 * <p>Node i listens on three consecutive ports from {@code basePort + 3i}: peer, binary gateway, HTTP.
 *
 * @param nodes    how many node processes
 * @param host     the address every node binds and advertises
 * @param basePort node 0's peer port
 * @param heap     each node's -Xmx, e.g. {@code 256m}
 * @param nodeJar  the runnable jar holding the node ({@code io.rattan.node.cli.RattanCli})
 * @param java     the java executable
 * @param jvmArgs  further JVM flags for every node
 * @param nodeArgs further {@code rattan node} options for every node, e.g. {@code --leaf-set-half 2}
 */
record ClusterSpec(int nodes, String host, int basePort, String heap, Path nodeJar, String java,
                   List<String> jvmArgs, List<String> nodeArgs) {

    static final int PORTS_PER_NODE = 3;
    static final String SLOW_TRACE = "--slow-trace";
    static final List<String> PER_IP_LIMITS =
            List.of("--client-rate", "--peer-rate", "--peer-ip-rate", "--client-storage-bytes");
    static final String SLOW_TRACE_NODE = "--slow-trace-node";
    static final String SLOW_TRACE_START = "--slow-trace-start";
    static final String WAN = "--wan";
    static final String WAN_SEED = "--wan-seed";
    static final String WAN_NODE = "--wan-node";
    static final String WAN_PEERS = "--wan-peers";

    /** Options the tool sets itself per node; given among the node options they would break ports or data dirs. */
    static final List<String> RESERVED_NODE_OPTIONS =
            List.of("--host", "--port", "--gateway-port", "--http-port", "--data-dir", "--bootstrap", WAN_NODE,
                    WAN_PEERS);

    ClusterSpec {
        if (nodes < 1 || nodes > 1000) {
            throw new IllegalArgumentException("--nodes must be 1..1000, got " + nodes);
        }
        if (basePort < 1 || basePort + PORTS_PER_NODE * nodes - 1 > 65535) {
            throw new IllegalArgumentException("ports " + basePort + ".." + (basePort + PORTS_PER_NODE * nodes - 1)
                    + " do not fit in 1..65535");
        }
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(heap, "heap");
        nodeJar = nodeJar.toAbsolutePath().normalize();
        Objects.requireNonNull(java, "java");
        jvmArgs = List.copyOf(jvmArgs);
        nodeArgs = List.copyOf(nodeArgs);
        for (String arg : nodeArgs) {
            for (String reserved : RESERVED_NODE_OPTIONS) {
                if (arg.equals(reserved) || arg.startsWith(reserved + "=")) {
                    throw new IllegalArgumentException(reserved + " is set by the cluster tool for each node; "
                            + "leave it out of the node options");
                }
            }
        }
    }

    ClusterSpec withNodeJar(Path jar) {
        return new ClusterSpec(nodes, host, basePort, heap, jar, java, jvmArgs, nodeArgs);
    }

    /** Node {@code node}'s ports: three in a row from {@code basePort + 3 × node}. */
    NodePorts ports(int node) {
        int first = basePort + PORTS_PER_NODE * node;
        return new NodePorts(host, first, first + 1, first + 2);
    }

    Address peer(int node) {
        return ports(node).peerAddress();
    }

    Address gateway(int node) {
        return ports(node).gatewayAddress();
    }

    Address http(int node) {
        return ports(node).httpAddress();
    }

    /**
     * How to run node {@code node} with its data under {@code dataDir}, joining through {@code bootstrap} (empty: it
     * founds the overlay).
     */
    NodeLaunch launch(int node, Path dataDir, List<Address> bootstrap) {
        List<String> jvm = new ArrayList<>();
        jvm.add("-Xmx" + heap);
        jvm.addAll(jvmArgs);
        if (ClassDataSharing.wanted(jvmArgs)) {
            jvm.addAll(ClassDataSharing.flags(java, nodeJar, node));
        }
        RocksDbNativeLibrary.flag(nodeJar, jvmArgs).ifPresent(jvm::add);
        return new NodeLaunch(java, jvm, nodeJar.toString(), ports(node), dataDir, nodeOptions(node, bootstrap));
    }

    /** The {@code rattan node} options beyond ports and data dir: bootstrap, per-IP limits off, the given ones. */
    private List<String> nodeOptions(int node, List<Address> bootstrap) {
        List<String> cmd = new ArrayList<>();
        if (!bootstrap.isEmpty()) {
            cmd.add("--bootstrap");
            List<String> peers = new ArrayList<>();
            for (Address a : bootstrap) {
                peers.add(a.toString());
            }
            cmd.add(String.join(",", peers));
        }
        // Every node and every load generator of a local cluster shares one IP, so the per-IP limits meant for
        // strangers (docs/security.md) would throttle the cluster itself: off here unless the node arguments set them.
        for (String limit : PER_IP_LIMITS) {
            if (!hasOption(nodeArgs, limit)) {
                cmd.add(limit);
                cmd.add("-1");
            }
        }
        cmd.addAll(nodeArgs);
        if (hasOption(nodeArgs, SLOW_TRACE) && !hasOption(nodeArgs, SLOW_TRACE_NODE)) {
            // A trace names nodes by index: each node reads its own lines, line i of gateways.txt being node i.
            cmd.add(SLOW_TRACE_NODE);
            cmd.add(Integer.toString(node));
        }
        if (hasOption(nodeArgs, WAN)) {
            // Hosts are assigned by index, as the simulator assigns them: every node is given the whole list.
            cmd.add(WAN_NODE);
            cmd.add(Integer.toString(node));
            cmd.add(WAN_PEERS);
            List<String> peers = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                peers.add(peer(i).toString());
            }
            cmd.add(String.join(",", peers));
        }
        return cmd;
    }

    /**
     * The {@code --wan} argument every node is given: {@code planetlab}, or the matrix file as an absolute path (a
     * node restarted from another directory finds it too), read once here so that a bad file is a usage error of
     * {@code start}, not a node that fails to start.
     */
    static String wanMatrix(String arg) {
        if (arg.equals(LatencyMatrix.PLANETLAB)) {
            return arg;
        }
        String file = Path.of(arg).toAbsolutePath().normalize().toString();
        LatencyMatrix.named(file, "--wan");
        return file;
    }

    static boolean hasOption(List<String> args, String option) {
        return args.stream().anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
    }

    void save(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("nodes", Integer.toString(nodes));
        p.setProperty("host", host);
        p.setProperty("basePort", Integer.toString(basePort));
        p.setProperty("heap", heap);
        p.setProperty("nodeJar", nodeJar.toString());
        p.setProperty("java", java);
        putList(p, "jvmArg", jvmArgs);
        putList(p, "nodeArg", nodeArgs);
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "written by rattan cluster start; read by restart");
        }
    }

    static ClusterSpec load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " not found: is " + file.getParent() + " a cluster started with "
                    + "'rattan cluster start'?");
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return new ClusterSpec(Integer.parseInt(p.getProperty("nodes")), p.getProperty("host"),
                Integer.parseInt(p.getProperty("basePort")), p.getProperty("heap"),
                Path.of(p.getProperty("nodeJar")), p.getProperty("java"), getList(p, "jvmArg"),
                getList(p, "nodeArg"));
    }

    private static void putList(Properties p, String prefix, List<String> values) {
        p.setProperty(prefix + ".count", Integer.toString(values.size()));
        for (int i = 0; i < values.size(); i++) {
            p.setProperty(prefix + "." + i, values.get(i));
        }
    }

    private static List<String> getList(Properties p, String prefix) {
        int n = Integer.parseInt(p.getProperty(prefix + ".count", "0"));
        List<String> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(p.getProperty(prefix + "." + i));
        }
        return values;
    }
}
