package io.rattan.bench.cluster;

import io.rattan.api.Address;
import io.rattan.core.id.NodeKey;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.tls.ClusterCa;
import io.rattan.sim.experiment.TableFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster of node processes on one host, kept under a directory D:
 *
 * <pre>
 * D/cluster.properties   what it was started with ({@link ClusterSpec})
 * D/gateways.txt         one line per node, in index order: host:rpcPort host:httpPort
 * D/node-i/pid           node i's pid while it runs
 * D/node-i/node.log      node i's standard output and error, appended across restarts
 * D/node-i/data          node i's id and RocksDB store
 * </pre>
 *
 * Not thread-safe; each command uses its own instance. The node processes outlive the JVM that starts them.
 */
final class ProcessCluster {

    static final String SPEC_FILE = "cluster.properties";
    static final String GATEWAYS_FILE = "gateways.txt";
    /** How long a node has to exit after SIGTERM before it gets SIGKILL. */
    static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int LOG_HEAD_LINES = 3;
    private static final int LOG_TAIL_LINES = 5;

    /** The copy of the node jar the nodes run from. */
    static final String NODE_JAR = "node.jar";
    /** With {@code --tls}: the cluster's CA, under the cluster's directory. */
    static final String CA_DIR = "ca";

    private final Path dir;
    private ClusterSpec spec;
    private final PrintWriter out;
    /** The processes this instance launched, so that a wait for /ready notices at once when one exits. */
    private final Map<Integer, NodeProcess> launched = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private ProcessCluster(Path dir, ClusterSpec spec, PrintWriter out) {
        this.dir = dir.toAbsolutePath().normalize();
        this.spec = spec;
        this.out = out;
    }

    /** A cluster to be started in {@code dir} as {@code spec} says. */
    static ProcessCluster create(Path dir, ClusterSpec spec, PrintWriter out) {
        return new ProcessCluster(dir, spec, out);
    }

    /** The cluster a previous {@code start} left in {@code dir}. */
    static ProcessCluster open(Path dir, PrintWriter out) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        return new ProcessCluster(abs, ClusterSpec.load(abs.resolve(SPEC_FILE)), out);
    }

    ClusterSpec spec() {
        return spec;
    }

    Path nodeDir(int node) {
        return dir.resolve("node-" + node);
    }

    Path dataDir(int node) {
        return nodeDir(node).resolve("data");
    }

    Path logFile(int node) {
        return nodeDir(node).resolve("node.log");
    }

    /** Node {@code node}'s process, found through its pid file. */
    NodeProcess process(int node) {
        checkIndex(node);
        return NodeProcess.find(spec.ports(node), dataDir(node), nodeDir(node).resolve("pid"), logFile(node));
    }

    void checkIndex(int node) {
        if (node < 0 || node >= spec.nodes()) {
            throw new IllegalArgumentException("--node must be 0.." + (spec.nodes() - 1) + ", got " + node);
        }
    }

    /**
     * Starts every node and waits until each answers {@code /ready}: node 0 founds the overlay, the others join
     * through it. On any failure it stops the nodes it started and throws, naming each node that was not ready
     * and why.
     */
    void start(Duration readyTimeout) throws ClusterException, IOException {
        List<Integer> running = running();
        if (!running.isEmpty()) {
            throw new ClusterException("nodes " + running + " of " + dir + " are still running; "
                    + "run 'rattan cluster stop --dir " + dir + "' first");
        }
        Files.createDirectories(dir);
        // The nodes run from a copy: a rebuild (./rattan rebuilds a stale jar) would replace the jar under running
        // JVMs, which load classes from it lazily and would fail.
        // With class-data sharing they run from a copy in the archive's cache, whose path the archive is tied to.
        boolean cds = ClassDataSharing.wanted(spec.jvmArgs());
        Path jarCopy = cds ? ClassDataSharing.cachedJar(spec.nodeJar(), ClassDataSharing.cacheDir())
                : dir.resolve(NODE_JAR);
        if (!spec.nodeJar().equals(jarCopy)) {
            if (!cds) {
                Files.copy(spec.nodeJar(), jarCopy, StandardCopyOption.REPLACE_EXISTING);
            }
            spec = spec.withNodeJar(jarCopy);
        }
        spec.save(dir.resolve(SPEC_FILE));
        writeGatewaysFile();
        long deadline = System.nanoTime() + readyTimeout.toNanos();
        try {
            launch(0, List.of());
            // The others join through node 0, so it must be serving before they start.
            awaitReady(List.of(0), deadline);
            List<Integer> rest = new ArrayList<>();
            for (int i = 1; i < spec.nodes(); i++) {
                launch(i, List.of(spec.peer(0)));
                rest.add(i);
            }
            awaitReady(rest, deadline);
        } catch (ClusterException | IOException | RuntimeException e) {
            out.println("stopping the nodes that were started ...");
            out.flush();
            stopAll();
            throw e;
        }
    }

    /** SIGTERM to every running node, then SIGKILL to those still alive {@link #STOP_GRACE} later. */
    void stopAll() {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            all.add(i);
        }
        stop(all);
    }

    /** Stops the given nodes as {@link #stopAll()} does; returns how many had to be killed. */
    int stop(List<Integer> nodes) {
        Map<Integer, ProcessHandle> alive = new LinkedHashMap<>();
        for (int i : nodes) {
            NodeProcess p = process(i);
            Optional<ProcessHandle> h = p.handle();
            if (h.isPresent()) {
                // A paused node would not act on SIGTERM until continued.
                NodeProcess.sendSignal(h.get().pid(), "TERM");
                NodeProcess.sendSignal(h.get().pid(), "CONT");
                alive.put(i, h.get());
            } else {
                p.forgetPid();
            }
        }
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        while (System.nanoTime() < deadline && alive.values().stream().anyMatch(ProcessHandle::isAlive)) {
            sleep(POLL);
        }
        int killed = 0;
        for (Map.Entry<Integer, ProcessHandle> e : alive.entrySet()) {
            NodeProcess p = process(e.getKey());
            // Re-check the command line: only a process that still runs this node's data dir gets SIGKILL.
            if (e.getValue().isAlive() && p.livePid().isPresent()) {
                out.println("node " + e.getKey() + " (pid " + e.getValue().pid() + ") did not exit within "
                        + STOP_GRACE.toSeconds() + " s of SIGTERM: SIGKILL");
                NodeProcess.sendSignal(e.getValue().pid(), "KILL");
                killed++;
                awaitExit(e.getValue());
            }
            p.forgetPid();
        }
        out.flush();
        return killed;
    }

    /** SIGKILL, nothing else: the node gets no chance to hand anything over. */
    void kill(int node) throws ClusterException {
        NodeProcess p = process(node);
        Optional<ProcessHandle> h = p.handle();
        if (h.isEmpty()) {
            throw new ClusterException("node " + node + " is not running");
        }
        NodeProcess.sendSignal(h.get().pid(), "KILL");
        awaitExit(h.get());
        p.forgetPid();
    }

    /**
     * Stops the node (as {@link #stop}) if it runs, then starts it again on the same ports and data dir, joining
     * through the other nodes, and waits for {@code /ready}.
     */
    void restart(int node, Duration readyTimeout) throws ClusterException, IOException {
        stop(List.of(node));
        List<Address> bootstrap = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            if (i != node) {
                bootstrap.add(spec.peer(i));
            }
        }
        launch(node, bootstrap);
        awaitReady(List.of(node), System.nanoTime() + readyTimeout.toNanos());
    }

    /** Indices of the nodes whose process is alive. */
    List<Integer> running() {
        List<Integer> up = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            if (process(i).livePid().isPresent()) {
                up.add(i);
            }
        }
        return up;
    }

    /** Whether node {@code node} answers {@code /ready} with 200 now, and if not, why. */
    String readiness(int node) {
        NodeProcess p = process(node);
        if (p.livePid().isEmpty()) {
            return "not running" + logTail(node);
        }
        return p.readiness(http);
    }

    /**
     * Mutual TLS between the nodes ({@code --tls}): a CA in {@link #CA_DIR} (made at the first start, kept after), and
     * a certificate of each node's key in its data directory (the key made first where it has none), anew at each
     * {@code cluster start}. For trials: the CA's key lies beside the nodes.
     */
    void certify() throws IOException {
        Path caDir = dir.resolve(CA_DIR);
        ClusterCa ca;
        if (Files.exists(caDir.resolve(ClusterCa.CERT_FILE))) {
            ca = ClusterCa.read(caDir, new SecureRandom());
        } else {
            ca = ClusterCa.create("rattan cluster " + dir.toAbsolutePath(), ClusterCa.VALIDITY_DEFAULT,
                    new SecureRandom());
            ca.write(caDir);
        }
        for (int node = 0; node < spec.nodes(); node++) {
            Files.createDirectories(dataDir(node));
            ca.certifyNode(dataDir(node), ClusterCa.VALIDITY_DEFAULT, List.of(spec.host()), new SecureRandom());
        }
    }

    /** The CA certificate {@link #certify} makes for a cluster in {@code dir}. */
    static Path caCertificate(Path dir) {
        return dir.toAbsolutePath().resolve(CA_DIR).resolve(ClusterCa.CERT_FILE);
    }

    /**
     * Gives node i the key on line i of {@code keysFile} (the simulator's {@code keys.txt}), and so its id, before its
     * first start, in the file the node keeps its key in ({@code NodeKeyFile}); a node that already has another key is
     * an error, since a new id would orphan its data.
     */
    void giveKeys(Path keysFile) throws ClusterException, IOException {
        List<NodeKey> keys;
        try {
            keys = TableFiles.readKeys(keysFile);
        } catch (IOException e) {
            throw new ClusterException("cannot read --keys " + keysFile + ": " + e.getMessage());
        }
        if (keys.size() < spec.nodes()) {
            throw new ClusterException("--keys " + keysFile + " holds " + keys.size() + " keys; the cluster has "
                    + spec.nodes() + " nodes");
        }
        for (int node = 0; node < spec.nodes(); node++) {
            Path file = dataDir(node).resolve(NodeKeyFile.FILE_NAME);
            NodeKey want = keys.get(node);
            Optional<NodeKey> had = NodeKeyFile.read(file);
            if (had.isPresent() && !had.get().id().equals(want.id())) {
                throw new ClusterException("node " + node + " of " + dir + " already has the key of id "
                        + had.get().id().toHex() + ", not " + want.id().toHex() + " of --keys: start the cluster in "
                        + "a new directory");
            }
            if (had.isEmpty()) {
                Files.createDirectories(dataDir(node));
                NodeKeyFile.write(file, want);
            }
        }
    }

    // ---- internals

    private void launch(int node, List<Address> bootstrap) throws IOException {
        checkIndex(node);
        Files.createDirectories(dataDir(node));
        // Its own session, so that a Ctrl-C meant for a later foreground command never reaches the node.
        NodeProcess process = NodeProcess.start(spec.launch(node, dataDir(node), bootstrap), logFile(node),
                nodeDir(node).resolve("pid"), true);
        launched.put(node, process);
        out.println("node " + node + ": pid " + process.livePid().orElse(-1) + ", peer " + spec.peer(node)
                + ", gateway " + spec.gateway(node) + ", http " + spec.http(node));
        out.flush();
    }

    private void awaitReady(List<Integer> nodes, long deadlineNanos) throws ClusterException {
        Map<Integer, String> notReady = new LinkedHashMap<>();
        for (int i : nodes) {
            notReady.put(i, "not probed yet");
        }
        while (true) {
            for (Integer i : new ArrayList<>(notReady.keySet())) {
                NodeProcess p = launched.get(i);
                if (p != null && p.exitStatus().isPresent()) {
                    // Fail at once: a node that exited will not become ready.
                    notReady.put(i, "its process exited with status " + p.exitStatus().getAsInt() + logTail(i));
                    throw notReadyError(notReady);
                }
                String why = process(i).readiness(http);
                if (why == null) {
                    notReady.remove(i);
                } else {
                    notReady.put(i, why);
                }
            }
            if (notReady.isEmpty()) {
                return;
            }
            if (System.nanoTime() >= deadlineNanos) {
                throw notReadyError(notReady);
            }
            sleep(Duration.ofMillis(200));
        }
    }

    private static ClusterException notReadyError(Map<Integer, String> notReady) {
        StringBuilder b = new StringBuilder();
        b.append(notReady.size() == 1 ? "a node was" : notReady.size() + " nodes were").append(" not ready:");
        for (Map.Entry<Integer, String> e : notReady.entrySet()) {
            b.append("\n  node ").append(e.getKey()).append(": ").append(e.getValue());
        }
        return new ClusterException(b.toString());
    }

    /**
     * What node {@code node} printed since it was last launched: its first lines (where a usage error or a failed
     * start says why) and its last ones.
     */
    private String logTail(int node) {
        Path log = logFile(node);
        List<String> run;
        try {
            run = process(node).logSinceLaunch();
        } catch (IOException e) {
            return "; no log at " + log;
        }
        List<String> shown = new ArrayList<>();
        if (run.size() <= LOG_HEAD_LINES + LOG_TAIL_LINES) {
            shown.addAll(run);
        } else {
            shown.addAll(run.subList(0, LOG_HEAD_LINES));
            shown.add("...");
            shown.addAll(run.subList(run.size() - LOG_TAIL_LINES, run.size()));
        }
        return "; from " + log + ":\n      " + String.join("\n      ", shown);
    }

    private void writeGatewaysFile() throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < spec.nodes(); i++) {
            b.append(spec.gateway(i)).append(' ').append(spec.http(i)).append('\n');
        }
        Files.writeString(dir.resolve(GATEWAYS_FILE), b.toString(), StandardCharsets.UTF_8);
    }

    private static void awaitExit(ProcessHandle h) {
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        while (h.isAlive() && System.nanoTime() < deadline) {
            sleep(POLL);
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
