package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Id;
import io.rattan.node.process.NodeLaunch;
import io.rattan.node.process.NodePorts;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Real nodes in JVMs of their own for the process tests (the crash and repair-at-volume proofs of
 * docs/durability.md): each a {@link NodeProcess} started from this JVM's class path (or another build's, for a
 * rolling upgrade) on free loopback ports, or again on a stopped node's ({@link #restart}), awaited until
 * {@code /ready}, and read through its HTTP port ({@link #records}, {@link #id}, {@link #metricSamples}).
 */
final class NodeProcesses {

    static final ObjectMapper JSON = new ObjectMapper();
    /** How long a node may take to become ready on a loaded 2-core machine. */
    static final Duration START_WAIT = Duration.ofMinutes(3);
    /** This JVM's class path: the build under test, which every helper launches unless told another. */
    static final String THIS_BUILD = System.getProperty("java.class.path");

    private NodeProcesses() {
    }

    /** One live record of a node's own store, as {@code GET /admin/records} lists it. */
    record Record(String key, String valueHash, boolean tombstone) {
        /** {@code key/valueHash}: a value's identity across nodes. */
        String entry() {
            return key + "/" + valueHash;
        }
    }

    /**
     * Starts a node on {@code dataDir} with {@code nodeArgs} after the ports and data dir, its output in
     * {@code log}, and waits until it is ready (failing at once if it exits). {@code nativeDir} holds RocksDB's JNI
     * library ({@link RocksDbNativeLibrary#extractedFromClassPath}), so the JVM does not inflate its own copy into
     * {@code /tmp}.
     */
    static NodeProcess start(HttpClient http, Path dataDir, Path log, Path nativeDir, String maxHeap,
                             List<String> nodeArgs) throws IOException {
        return start(http, dataDir, log, nativeDir, maxHeap, List.of(), nodeArgs);
    }

    /** As {@link #start(HttpClient, Path, Path, Path, String, List)}, with further {@code jvmArgs}. */
    static NodeProcess start(HttpClient http, Path dataDir, Path log, Path nativeDir, String maxHeap,
                             List<String> jvmArgs, List<String> nodeArgs) throws IOException {
        NodeProcess node = NodeProcess.start(launch(THIS_BUILD, freePorts(), dataDir, nativeDir, maxHeap, jvmArgs,
                nodeArgs), log, null, false);
        node.awaitReady(http, START_WAIT);
        return node;
    }

    /** Starts a node as {@link #start} does, but returns at once: for a node that is not to become ready. */
    static NodeProcess startUnawaited(Path dataDir, Path log, Path nativeDir, String maxHeap, List<String> nodeArgs)
            throws IOException {
        return NodeProcess.start(launch(THIS_BUILD, freePorts(), dataDir, nativeDir, maxHeap, List.of(), nodeArgs), log,
                null, false);
    }

    /**
     * Starts this build again where {@code stopped} ran, which must have exited: on its ports, and on
     * {@code dataDir}, which must be the data dir it ran on (so the node keeps its id and its store), but with
     * {@code nodeArgs} of its own (an upgrade, a flag changed). The new process takes {@code stopped}'s place in
     * {@code into} as soon as it runs, so that the caller's clean-up stops it even when it never gets ready; then it
     * is awaited until ready.
     */
    static NodeProcess restart(HttpClient http, NodeProcess stopped, Path dataDir, Path log, Path nativeDir,
                               String maxHeap, List<String> nodeArgs, List<NodeProcess> into) throws IOException {
        if (stopped.isAlive()) {
            throw new IllegalStateException("node on " + stopped.ports() + " still runs");
        }
        NodeLaunch launch = launch(THIS_BUILD, stopped.ports(), dataDir, nativeDir, maxHeap, List.of(), nodeArgs);
        NodeProcess node = NodeProcess.start(launch, log, null, false);
        into.set(into.indexOf(stopped), node);
        node.awaitReady(http, START_WAIT);
        return node;
    }

    /**
     * {@code count} nodes on {@code dir/node-i} (output in {@code dir/node-i.log}), each with {@code nodeArgs}: the
     * first founds the overlay, the others join through it, started together (their JVMs boot side by side) and
     * awaited. Each is added to {@code into} as soon as it runs, so that the caller's clean-up stops it even when a
     * later one fails to start.
     */
    static void startCluster(HttpClient http, Path dir, Path nativeDir, String maxHeap, int count,
                             List<String> nodeArgs, List<NodeProcess> into) throws IOException {
        startCluster(http, dir, THIS_BUILD, nativeDir, maxHeap, count, nodeArgs, into);
    }

    /**
     * As {@link #startCluster(HttpClient, Path, Path, String, int, List, List)}, each node run from
     * {@code classPath} (another build's runnable jar, say), whose RocksDB JNI library is in {@code nativeDir}.
     */
    static void startCluster(HttpClient http, Path dir, String classPath, Path nativeDir, String maxHeap, int count,
                             List<String> nodeArgs, List<NodeProcess> into) throws IOException {
        NodeProcess first = NodeProcess.start(launch(classPath, freePorts(), dir.resolve("node-0"), nativeDir, maxHeap,
                List.of(), nodeArgs), dir.resolve("node-0.log"), null, false);
        into.add(first);
        first.awaitReady(http, START_WAIT);
        List<String> joining = new ArrayList<>(nodeArgs);
        joining.addAll(List.of("--bootstrap", "127.0.0.1:" + first.ports().peer()));
        List<NodeProcess> others = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            NodeLaunch launch = launch(classPath, freePorts(), dir.resolve("node-" + i), nativeDir, maxHeap, List.of(),
                    joining);
            NodeProcess node = NodeProcess.start(launch, dir.resolve("node-" + i + ".log"), null, false);
            others.add(node);
            into.add(node);
        }
        for (NodeProcess node : others) {
            node.awaitReady(http, START_WAIT);
        }
    }

    private static NodeLaunch launch(String classPath, NodePorts ports, Path dataDir, Path nativeDir, String maxHeap,
                                     List<String> jvmArgs, List<String> nodeArgs) {
        List<String> jvm = new ArrayList<>(List.of("-Xmx" + maxHeap, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.library.path=" + nativeDir.toAbsolutePath()));
        jvm.addAll(jvmArgs);
        return new NodeLaunch(Path.of(System.getProperty("java.home"), "bin", "java").toString(), jvm,
                classPath, ports, dataDir, nodeArgs);
    }

    /** Kills every node of {@code nodes} and waits for each to exit: a process test's clean-up. */
    static void killAll(List<NodeProcess> nodes) throws InterruptedException {
        for (NodeProcess n : nodes) {
            n.sigkill();
        }
        for (NodeProcess n : nodes) {
            n.awaitExit(Duration.ofSeconds(30));
        }
    }

    /** Its node id, from {@code GET /node}. */
    static Id id(HttpClient http, NodeProcess node) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(node, "/node")).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Id.fromHex(JSON.readTree(r.body()).get("id").asText());
    }

    /** Every live record of its own store (tombstones included), from {@code GET /admin/records}: never from gets. */
    static List<Record> records(HttpClient http, NodeProcess node) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(node, "/admin/records"))
                .timeout(Duration.ofSeconds(150)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        List<Record> out = new ArrayList<>();
        for (JsonNode rec : body.get("records")) {
            out.add(new Record(rec.get("key").asText(), rec.get("valueHash").asText(),
                    rec.get("tombstone").asBoolean()));
        }
        assertThat(out).hasSize(body.get("count").asInt());
        return out;
    }

    /**
     * One Prometheus metric's samples from {@code GET /metrics}, by label set ({@code {reason="..."}}, or empty for
     * a sample without labels).
     */
    static Map<String, Double> metricSamples(HttpClient http, NodeProcess node, String name)
            throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(node, "/metrics"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, Double> samples = new TreeMap<>();
        for (String line : r.body().split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                int space = line.lastIndexOf(' ');
                samples.merge(line.substring(name.length(), space).trim(),
                        Double.parseDouble(line.substring(space + 1)), Double::sum);
            }
        }
        return samples;
    }

    static URI uri(NodeProcess node, String pathAndQuery) {
        return URI.create("http://" + node.ports().httpAddress() + pathAndQuery);
    }

    /**
     * Three free ports on loopback: peer, gateway, HTTP. Drawn below the kernel's ephemeral range: a port the kernel
     * handed out for bind(0) and that was closed again can be handed to any socket before the node binds it (another
     * test's server, any outbound connection's local end), which failed a node's start with "Address already in use".
     * Each port is claimed for this JVM ({@link #CLAIMED}): a port found bindable stays free only until its node binds
     * it, a second later, and a cluster started node after node, or two tests at once, drew the same port twice.
     */
    private static NodePorts freePorts() throws IOException {
        int[] ports = new int[3];
        int below = ephemeralLow();
        for (int i = 0; i < 3; i++) {
            ports[i] = freePortBelow(below, ports);
        }
        return new NodePorts("127.0.0.1", ports[0], ports[1], ports[2]);
    }

    private static int freePortBelow(int below, int[] taken) throws IOException {
        int low = Math.max(1024, below - 12_000);
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(low, below);
            if (Arrays.stream(taken).noneMatch(p -> p == port) && bindable(port) && CLAIMED.add(port)) {
                return port;
            }
        }
        throw new IOException("no free loopback port found in " + low + ".." + (below - 1));
    }

    /**
     * Every port {@link #freePorts} has handed out in this JVM: test state, shared by the process tests that run
     * side by side, never handed out twice (a restart passes its node's own ports on explicitly).
     */
    private static final Set<Integer> CLAIMED = ConcurrentHashMap.newKeySet();

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    /**
     * The first port of the kernel's ephemeral range, or Linux's default when it cannot be read or leaves too little
     * below it. Read line by line: /proc reports a size of 0, and {@code Files.readString} read one character of it.
     */
    private static int ephemeralLow() {
        try {
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low >= 10_000 ? low : 32_768;
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }
}
