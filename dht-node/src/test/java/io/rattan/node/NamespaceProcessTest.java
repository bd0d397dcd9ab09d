package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two namespaces with different k on one cluster of real node processes (issue 37): made at one node over the admin
 * route, known to every node, and each namespace's values held by exactly k nodes, counted from each node's own store
 * ({@code GET /node}'s {@code namespaceRecords}); a memory namespace leaves nothing in any data directory, a disk one
 * has its store there.
 */
class NamespaceProcessTest {

    private static final int NODES = 6;
    private static final int VALUES = 40;
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<NodeProcess> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        NodeProcesses.killAll(nodes);
    }

    @Test
    void eachNamespaceKeepsItsOwnKOnEveryNodesStore() throws Exception {
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        NodeProcesses.startCluster(http, dir, nativeDir, "160m", NODES,
                List.of("--leaf-set-half", "3", "--client-rate", "1000000"), nodes);
        assertThat(send(nodes.get(0), "PUT", "/admin/namespaces/single", """
                {"replicas": 1, "writeQuorum": 1, "storage": "disk"}""").statusCode()).isEqualTo(201);
        assertThat(send(nodes.get(1), "PUT", "/admin/namespaces/triple", """
                {"replicas": 3, "writeQuorum": 2, "storage": "memory"}""").statusCode()).isEqualTo(201);
        await().atMost(WAIT).until(() -> everyNodeLists("single", "triple"));

        for (int i = 0; i < VALUES; i++) {
            for (String ns : List.of("single", "triple")) {
                HttpResponse<String> put = send(nodes.get(i % NODES), "POST",
                        "/v1/namespaces/" + ns + "/keys/name:key-" + i + "?ttl=600", ns + " " + i);
                assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
            }
        }
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(copies("single")).as("copies in k = 1").isEqualTo(VALUES);
            assertThat(copies("triple")).as("copies in k = 3").isEqualTo(3L * VALUES);
        });
        HttpResponse<String> get = send(nodes.get(2), "GET", "/v1/namespaces/single/keys/name:key-7", null);
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(NodeProcesses.JSON.readTree(get.body()).get("values")).hasSize(1);
        assertThat(send(nodes.get(3), "GET", "/v1/keys/name:key-7", null).body()).contains("\"values\":[]");
        for (int i = 0; i < NODES; i++) {
            Path data = dir.resolve("node-" + i).resolve("namespaces");
            assertThat(data.resolve("triple")).as("a memory namespace keeps nothing on disk").doesNotExist();
            assertThat(Files.isDirectory(data.resolve("single"))).as("a disk namespace's store").isTrue();
        }
    }

    private boolean everyNodeLists(String... names) throws IOException, InterruptedException {
        for (NodeProcess n : nodes) {
            String body = send(n, "GET", "/v1/namespaces", null).body();
            for (String name : names) {
                if (!body.contains("\"" + name + "\"")) {
                    return false;
                }
            }
        }
        return true;
    }

    private long copies(String namespace) throws IOException, InterruptedException {
        long sum = 0;
        for (NodeProcess n : nodes) {
            JsonNode records = NodeProcesses.JSON.readTree(send(n, "GET", "/node", null).body())
                    .get("namespaceRecords");
            sum += records.has(namespace) ? records.get(namespace).asLong() : 0;
        }
        return sum;
    }

    private HttpResponse<String> send(NodeProcess n, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(NodeProcesses.uri(n, path)).timeout(Duration.ofSeconds(30));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
