package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.core.id.Id;
import io.rattan.core.net.Address;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A real node ({@code RattanCli node}) in a JVM of its own, for the process tests (the crash and repair-at-volume
 * proofs of docs/durability.md): started on free loopback ports with its output in a log file, awaited until
 * {@code /ready}, and SIGKILLed ({@link #kill}) or read through its HTTP port ({@link #records}, {@link #id}).
 */
final class NodeProcess {

    static final ObjectMapper JSON = new ObjectMapper();
    /** How long a node may take to become ready on a loaded 2-core machine. */
    static final Duration START_WAIT = Duration.ofMinutes(3);

    private final Process process;
    private final int peerPort;
    private final int gatewayPort;
    private final int httpPort;

    private NodeProcess(Process process, int peerPort, int gatewayPort, int httpPort) {
        this.process = process;
        this.peerPort = peerPort;
        this.gatewayPort = gatewayPort;
        this.httpPort = httpPort;
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
     * library ({@link RocksDbNativeLibrary#extractedFromClassPath}), so the JVM does not inflate its own copy into {@code /tmp}.
     */
    static NodeProcess start(HttpClient http, Path dataDir, Path log, Path nativeDir, String maxHeap,
                             List<String> nodeArgs) throws IOException {
        return start(http, dataDir, log, nativeDir, maxHeap, List.of(), nodeArgs);
    }

    /** As {@link #start(HttpClient, Path, Path, Path, String, List)}, with {@code jvmArgs} before the main class. */
    static NodeProcess start(HttpClient http, Path dataDir, Path log, Path nativeDir, String maxHeap,
                             List<String> jvmArgs, List<String> nodeArgs) throws IOException {
        int[] ports = freePorts(3);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.library.path=" + nativeDir.toAbsolutePath(), "-cp", System.getProperty("java.class.path")));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("io.rattan.node.cli.RattanCli", "node", "--host", "127.0.0.1", "--port", "" + ports[0],
                "--gateway-port", "" + ports[1], "--http-port", "" + ports[2],
                "--data-dir", dataDir.toAbsolutePath().toString()));
        cmd.addAll(nodeArgs);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        NodeProcess node = new NodeProcess(p, ports[0], ports[1], ports[2]);
        await().atMost(START_WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!p.isAlive()) {
                // The temporary directory goes with the test: say here why the node died.
                throw new AssertionError("node process exited with " + p.exitValue() + " before it was ready; "
                        + "the end of its log " + log + ":\n" + tail(log, 40));
            }
            try {
                return http.send(HttpRequest.newBuilder(node.uri("/ready")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
        return node;
    }

    private static String tail(Path log, int lines) throws IOException {
        List<String> all = Files.readAllLines(log);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    Process process() {
        return process;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int peerPort() {
        return peerPort;
    }

    int httpPort() {
        return httpPort;
    }

    /** Its binary client gateway, for a {@code RattanClient}. */
    Address gateway() {
        return new Address("127.0.0.1", gatewayPort);
    }

    /** SIGKILL on Linux (no shutdown hook, no RocksDB close), and the wait for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Its node id, from {@code GET /node}. */
    Id id(HttpClient http) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/node")).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Id.fromHex(JSON.readTree(r.body()).get("id").asText());
    }

    /** Every live record of its own store (tombstones included), from {@code GET /admin/records}: never from gets. */
    List<Record> records(HttpClient http) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/admin/records"))
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
    Map<String, Double> metricSamples(HttpClient http, String name) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/metrics")).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
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

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + httpPort + pathAndQuery);
    }

    private static int[] freePorts(int n) throws IOException {
        ServerSocket[] sockets = new ServerSocket[n];
        int[] ports = new int[n];
        try {
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
        return ports;
    }
}
