package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling upgrade (issue 38) on real node processes. Five nodes speaking protocol 14, the oldest this build speaks,
 * are upgraded one at a time: each is stopped gracefully (SIGTERM: it hands its values off and says goodbye) and
 * started again on its data directory, key and ports without {@code --protocol-version}, so at 17, this build's
 * newest, and
 * with {@code --require-remove-acks false} and {@code --require-origin-proofs false}, the runbook's upgrade window
 * (nodes of 14 send a remove's gateway no acks of their tombstones, and sign no puts).
 * It proves that
 * <ul>
 * <li>a cluster of mixed versions keeps serving: puts through nodes at 14 and at 17 are acknowledged while a node is
 * away, an upgraded node joins through a node at 14 (the first four steps) and through one at 17 (the last), keeps
 * its id, and after every step each value acknowledged so far reads back exactly through the node just upgraded and
 * through a node still at 14: nothing acknowledged is lost (with the previous release's jar, protocol 15, each
 * upgraded node also migrates the store of format 3 that jar wrote to format 4);
 * <li>an upgraded node knows it speaks the older version to the old nodes ({@code rattan_peers_older_protocol}), and
 * once every node runs 17 none does: they speak 17 among themselves, and a namespace defined at one node reaches
 * every node and serves its values, and a value put with a secret is removed through a node restarted without the
 * window's flag (so acknowledged on W replicas' own acks of its tombstone), and reads back as gone: a value put
 * before the upgrade, whose copies moved to the slot its binding names (each upgraded node's store migrated from
 * format 3 to 4, which the test checks in its log, when the old nodes run the previous release's jar).
 * </ul>
 *
 * <p>The old nodes are this build held at {@code --protocol-version 14}; when the environment variable
 * {@value #PREVIOUS_JAR_ENV} names a runnable jar of the previous release ({@code dht-node-…-all.jar}), they run that
 * jar instead, without the flag (it does not know it), with RocksDB's JNI library extracted from that jar (beside it,
 * as {@code rattan local} does). {@link OldBuild} is the one place where the two differ. The upgraded nodes always run
 * this build.
 */
class MixedVersionProcessTest {

    /** Names a runnable jar of the previous release to run the old nodes from; unset: this build at 14. */
    static final String PREVIOUS_JAR_ENV = "RATTAN_PREVIOUS_NODE_JAR";

    private static final int NODES = 5;
    private static final int FIRST_VALUES = 40;
    private static final int VALUES_PER_STEP = 8;
    private static final int NAMESPACE_VALUES = 10;
    private static final String HEAP = "160m";
    private static final List<String> NODE_ARGS = List.of("--leaf-set-half", "3", "--client-rate", "1000000");
    private static final String NAMESPACE_BODY = """
            {"replicas": 3, "writeQuorum": 2, "storage": "disk"}""";
    private static final String KEYS = "/v1/keys/";
    private static final String NAMESPACE_KEYS = "/v1/namespaces/after/keys/";
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Duration POLL = Duration.ofMillis(500);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Node i at index i: an old node until step i replaces it with its upgraded process. */
    private final List<NodeProcess> nodes = new ArrayList<>();
    /** Every value of the default namespace acknowledged (201), by key name: what must read back. */
    private final Map<String, String> acknowledged = new LinkedHashMap<>();

    @AfterEach
    void stop() throws InterruptedException {
        NodeProcesses.killAll(nodes);
    }

    @Test
    void aClusterUpgradedNodeByNodeFrom14To17LosesNothingAndEndsSpeaking17() throws Exception {
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        OldBuild old = OldBuild.fromEnvironment(nativeDir);
        List<String> oldArgs = new ArrayList<>(NODE_ARGS);
        oldArgs.addAll(old.args());
        NodeProcesses.startCluster(http, dir, old.classPath(), old.nativeDir(), HEAP, NODES, oldArgs, nodes);

        for (int n = 0; n < FIRST_VALUES; n++) {
            put(nodes.get(n % NODES), "before-" + n);
        }
        // Put with a secret before the upgrade, removed after it: its copies move to their binding's slot (protocol
        // 16), by the store's migration where the previous release wrote them.
        String bound = putWithSecret(nodes.get(1));
        for (int i = 0; i < NODES; i++) {
            upgrade(i, nativeDir);
            if (old.args().isEmpty()) {
                assertThat(nodes.get(i).logSinceLaunch()).as("node %d's log", i)
                        .anyMatch(l -> l.contains("from format version 3 to 4"));
            }
            if (i == 0) {
                assertThat(olderPeers(nodes.get(0))).as("old nodes the upgraded node 0 speaks 14 to").isPositive();
            }
        }

        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> {
            for (int i = 0; i < NODES; i++) {
                assertThat(olderPeers(nodes.get(i))).as("peers node %d speaks an older version to", i).isZero();
            }
        });
        for (int i = 0; i < NODES; i++) {
            assertThat(NodeProcesses.metricSamples(http, nodes.get(i), "rattan_protocol_spoken").values())
                    .as("node %d speaks", i).containsExactly((double) MessageCodec.VERSION);
        }
        // The window closes: node 0 again without its flag, so its removes wait for the replicas' own acks.
        NodeProcess zero = nodes.get(0);
        assertThat(zero.signal("TERM")).isTrue();
        assertThat(zero.awaitExit(WAIT)).isTrue();
        assertThat(zero.exitStatus()).as("node 0's exit status (0: a graceful leave)").hasValue(0);
        List<String> closedArgs = new ArrayList<>(NODE_ARGS);
        closedArgs.addAll(List.of("--bootstrap", "127.0.0.1:" + nodes.get(1).ports().peer()));
        NodeProcesses.restart(http, zero, dir.resolve("node-0"), dir.resolve("node-0-closed.log"), nativeDir, HEAP,
                closedArgs, nodes);
        HttpResponse<String> defined = send(nodes.get(0), "PUT", "/admin/namespaces/after", NAMESPACE_BODY);
        assertThat(defined.statusCode()).as(defined.body()).isEqualTo(201);
        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> {
            for (int i = 0; i < NODES; i++) {
                assertThat(namespaces(nodes.get(i))).as("namespaces node %d lists", i).contains("after");
            }
        });
        Map<String, String> namespaced = new LinkedHashMap<>();
        for (int n = 0; n < NAMESPACE_VALUES; n++) {
            String name = "after-" + n;
            String value = "value of " + name;
            HttpResponse<String> put = send(nodes.get(0), "POST", NAMESPACE_KEYS + "name:" + name + "?ttl=600", value);
            assertThat(put.statusCode()).as("put of %s in namespace after: %s", name, put.body()).isEqualTo(201);
            namespaced.put(name, value);
        }
        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> assertThat(
                unreadable(nodes.get(3), NAMESPACE_KEYS, namespaced)).as("unread through node 3").isEmpty());
        removedThroughNodeZero(bound);
    }

    /** Puts a value with a secret under {@code name:removed} through {@code n}; the value's location. */
    private String putWithSecret(NodeProcess n) throws IOException, InterruptedException {
        HttpRequest put = HttpRequest.newBuilder(NodeProcesses.uri(n, KEYS + "name:removed?ttl=600"))
                .timeout(Duration.ofSeconds(30)).header("Rattan-Secret", "s3cret")
                .POST(HttpRequest.BodyPublishers.ofString("to be removed")).build();
        HttpResponse<String> stored = http.send(put, HttpResponse.BodyHandlers.ofString());
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        return stored.headers().firstValue("Location").orElseThrow();
    }

    /**
     * The value put with a secret before the upgrade is removed through node 0, its remove acknowledged on
     * tombstones' acks, and gone.
     */
    private void removedThroughNodeZero(String location) throws IOException, InterruptedException {
        HttpRequest remove = HttpRequest.newBuilder(NodeProcesses.uri(nodes.get(0), location))
                .timeout(Duration.ofSeconds(30)).header("Rattan-Secret", "s3cret").DELETE().build();
        HttpResponse<String> removed = http.send(remove, HttpResponse.BodyHandlers.ofString());
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(204);
        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> {
            HttpResponse<String> read = send(nodes.get(3), "GET", KEYS + "name:removed", null);
            assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
            assertThat(NodeProcesses.JSON.readTree(read.body()).get("values")).as(read.body()).isEmpty();
        });
    }

    /**
     * Step {@code i}: node i leaves gracefully, puts go on through the others, and node i comes back on its data
     * directory and ports at 17, joining through node i+1 (at 14 until the last step); then everything acknowledged
     * so far must read back through it and through node i+1 while that one is still at 14.
     */
    private void upgrade(int i, Path nativeDir) throws Exception {
        NodeProcess leaving = nodes.get(i);
        Id id = NodeProcesses.id(http, leaving);
        assertThat(leaving.signal("TERM")).as("SIGTERM to node %d", i).isTrue();
        assertThat(leaving.awaitExit(WAIT)).as("node %d left within %s", i, WAIT).isTrue();
        assertThat(leaving.exitStatus()).as("node %d's exit status (0: a graceful leave)", i).hasValue(0);
        List<NodeProcess> live = new ArrayList<>(nodes);
        live.remove(leaving);
        // Every node has taken the goodbye, so no put below is routed to the node that left.
        String gone = leaving.ports().host() + ":" + leaving.ports().peer();
        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> {
            for (NodeProcess n : live) {
                assertThat(leafAddresses(n)).as("leaf set of the node on %s", n.ports().httpAddress())
                        .doesNotContain(gone);
            }
        });
        for (int n = 0; n < VALUES_PER_STEP; n++) {
            put(live.get(n % live.size()), "step-" + i + "-" + n);
        }

        NodeProcess bootstrap = nodes.get((i + 1) % NODES);
        List<String> newArgs = new ArrayList<>(NODE_ARGS);
        // The runbook's upgrade window: nodes of 14 send a remove's gateway no acks, so the upgraded ones take the
        // root's word until every node runs 17; and they sign no puts, so the upgraded roots take unsigned ones.
        newArgs.addAll(List.of("--bootstrap", "127.0.0.1:" + bootstrap.ports().peer(), "--require-remove-acks",
                "false", "--require-origin-proofs", "false"));
        NodeProcess upgraded = NodeProcesses.restart(http, leaving, dir.resolve("node-" + i),
                dir.resolve("node-" + i + ".log"), nativeDir, HEAP, newArgs, nodes);
        Path keyFile = dir.resolve("node-" + i).resolve(NodeKeyFile.FILE_NAME);
        assertThat(NodeProcesses.id(http, upgraded)).as("node %d's id, its key's, kept in its data directory", i)
                .isEqualTo(NodeKeyFile.read(keyFile).orElseThrow().id()).isEqualTo(id);

        List<NodeProcess> readers = i + 1 < NODES ? List.of(upgraded, nodes.get(i + 1)) : List.of(upgraded);
        await().atMost(WAIT).pollInterval(POLL).untilAsserted(() -> {
            for (NodeProcess reader : readers) {
                assertThat(unreadable(reader, KEYS, acknowledged))
                        .as("after step %d, unread through the node on %s", i, reader.ports().httpAddress())
                        .isEmpty();
            }
        });
    }

    /** Peers {@code n} speaks an older protocol version to, from {@code rattan_peers_older_protocol}. */
    private double olderPeers(NodeProcess n) throws IOException, InterruptedException {
        return NodeProcesses.metricSamples(http, n, "rattan_peers_older_protocol").values().stream()
                .mapToDouble(Double::doubleValue).sum();
    }

    /** How the old nodes run: the previous release's jar, or this build held at the older protocol version. */
    private record OldBuild(String classPath, Path nativeDir, List<String> args) {

        static OldBuild fromEnvironment(Path thisBuildNativeDir) throws IOException {
            String jar = System.getenv(PREVIOUS_JAR_ENV);
            if (jar == null || jar.isBlank()) {
                return new OldBuild(NodeProcesses.THIS_BUILD, thisBuildNativeDir,
                        List.of("--protocol-version", Integer.toString(MessageCodec.VERSION_OLDEST)));
            }
            Path path = Path.of(jar).toAbsolutePath();
            return new OldBuild(path.toString(), RocksDbNativeLibrary.extracted(path), List.of());
        }
    }

    /** Puts {@code value of NAME} under {@code name:NAME} through {@code n}; it must be acknowledged. */
    private void put(NodeProcess n, String name) throws IOException, InterruptedException {
        String value = "value of " + name;
        HttpResponse<String> r = send(n, "POST", KEYS + "name:" + name + "?ttl=600", value);
        assertThat(r.statusCode()).as("put of %s through the node on %s: %s", name, n.ports().httpAddress(),
                r.body()).isEqualTo(201);
        acknowledged.put(name, value);
    }

    /**
     * The names among {@code values} whose get through {@code n} (under {@code keys}) does not answer 200 with
     * exactly their value, each with what it answered instead.
     */
    private List<String> unreadable(NodeProcess n, String keys, Map<String, String> values)
            throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            String expected = Base64.getEncoder().encodeToString(e.getValue().getBytes(StandardCharsets.UTF_8));
            try {
                HttpResponse<String> r = send(n, "GET", keys + "name:" + e.getKey(), null);
                JsonNode found = r.statusCode() == 200 ? NodeProcesses.JSON.readTree(r.body()).get("values") : null;
                if (found == null || found.size() != 1 || !expected.equals(found.get(0).get("value").asText())) {
                    out.add(e.getKey() + ": " + r.statusCode() + " " + r.body());
                }
            } catch (IOException ex) {
                out.add(e.getKey() + ": " + ex);
            }
        }
        return out;
    }

    /** The peer addresses in {@code n}'s leaf set, from {@code GET /node}. */
    private List<String> leafAddresses(NodeProcess n) throws IOException, InterruptedException {
        HttpResponse<String> r = send(n, "GET", "/node", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        NodeProcesses.JSON.readTree(r.body()).get("leafSet").forEach(leaf -> out.add(leaf.get("address").asText()));
        return out;
    }

    /** The names of the namespaces {@code n} lists, from {@code GET /v1/namespaces}. */
    private List<String> namespaces(NodeProcess n) throws IOException, InterruptedException {
        HttpResponse<String> r = send(n, "GET", "/v1/namespaces", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        NodeProcesses.JSON.readTree(r.body()).get("namespaces").forEach(ns -> out.add(ns.get("name").asText()));
        return out;
    }

    private HttpResponse<String> send(NodeProcess n, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(NodeProcesses.uri(n, path)).timeout(Duration.ofSeconds(30));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
