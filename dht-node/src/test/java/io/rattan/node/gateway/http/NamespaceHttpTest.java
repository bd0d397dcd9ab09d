package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Timer;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.OwnerKey;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.Watch;
import io.rattan.client.WatchListener;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.gateway.http.SseTestClient.Event;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Namespaces through the real path, on three real nodes (Netty, RocksDB, one JVM; a leaf set of half 2, so k is at
 * most 3): {@code PUT /admin/namespaces/{ns}} (201, the same body 200, another 409, bad bodies and names 400), the
 * definition reaching every node ({@code GET /v1/namespaces}), the same key in the default namespace and two others
 * each holding only its own values (HTTP, SSE watch, and the Java client's {@code namespace()}), a namespace's own value
 * limit (413), and a retired namespace's keys gone (404). Each test makes namespaces of its own names.
 */
class NamespaceHttpTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2)
            .withLimits(4096, 7 * 24 * 3600, 256, 1 << 20);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    static Path dir;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(3, dir, CONFIG);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aDefinitionIsImmutableAndReachesEveryNode() throws Exception {
        String body = "{\"replicas\": 2, \"writeQuorum\": 1, \"storage\": \"memory\", \"valueBytesMax\": 100, "
                + "\"ttlSecondsMax\": 600, \"routing\": \"greedy\"}";
        HttpResponse<String> created = define(0, "imm", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.headers().firstValue("Location")).contains("/admin/namespaces/imm");
        JsonNode d = JSON.readTree(created.body());
        assertThat(d.get("name").asText()).isEqualTo("imm");
        assertThat(d.get("replicas").asInt()).isEqualTo(2);
        assertThat(d.get("writeQuorum").asInt()).isEqualTo(1);
        assertThat(d.get("storage").asText()).isEqualTo("memory");
        assertThat(d.get("valueBytesMax").asInt()).isEqualTo(100);
        assertThat(d.get("ttlSecondsMax").asInt()).isEqualTo(600);
        assertThat(d.get("routing").asText()).isEqualTo("greedy");
        assertThat(d.get("retired").asBoolean()).isFalse();

        HttpResponse<String> again = define(0, "imm", body);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(JSON.readTree(again.body())).isEqualTo(d);
        HttpResponse<String> other = define(0, "imm", "{\"replicas\": 3}");
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(detail(other)).contains("other settings").contains("\"replicas\":2");

        awaitEveryNodeLists("imm");
        // Another node holds the definition it was told: the same body there is no change either.
        assertThat(define(2, "imm", body).statusCode()).isEqualTo(200);
        JsonNode list = JSON.readTree(get(1, "/v1/namespaces").body()).get("namespaces");
        JsonNode first = list.get(0);
        assertThat(first.get("name").asText()).isEqualTo("default");
        assertThat(first.get("replicas").asInt()).isEqualTo(3);
        assertThat(first.get("writeQuorum").asInt()).isEqualTo(2);
        assertThat(first.get("valueBytesMax").asInt()).isEqualTo(4096);
        assertThat(first.get("storage").asText()).isEqualTo("disk");
        assertThat(first.get("routing").asText()).isEqualTo("delay-aware");
        assertThat(find(list, "imm")).isEqualTo(d);
        assertThat(get(1, "/admin/namespaces").statusCode()).isEqualTo(200);
    }

    @Test
    void badDefinitionsAreRefusedWithTheirReason() throws Exception {
        assertProblem(define(0, "toobig", "{\"replicas\": 4}"), 400, "leaf set's half + 1 (3), got 4");
        assertProblem(define(0, "Bad_Name", "{}"), 400, "a namespace's name is 1..64");
        assertProblem(define(0, "typo", "{\"replicaz\": 2}"), 400, "unknown field 'replicaz'");
        assertProblem(define(0, "quorum", "{\"replicas\": 2, \"writeQuorum\": 3}"), 400, "writeQuorum must be 1..");
        assertProblem(define(0, "tape", "{\"storage\": \"tape\"}"), 400, "storage must be \"disk\" or \"memory\"");
        assertProblem(define(0, "half", "{\"replicas\": 1.5}"), 400, "replicas must be a whole number");
        assertProblem(define(0, "route", "{\"routing\": \"fastest\"}"), 400, "routing must be");
        assertProblem(define(0, "twice", "{\"replicas\": 1, \"replicas\": 2}"), 400, "not valid JSON");
        assertProblem(define(0, "notjson", "[1, 2]"), 400, "must be a JSON object");
        assertProblem(define(0, "default", "{}"), 409, "the node's own settings");
        assertThat(send(0, "/admin/namespaces/any", "POST", "{}").statusCode()).isEqualTo(405);
        List<String> names = new ArrayList<>();
        JSON.readTree(get(0, "/v1/namespaces").body()).get("namespaces").forEach(n -> names.add(n.get("name").asText()));
        assertThat(names).doesNotContain("toobig", "typo", "quorum", "tape", "half", "route", "twice", "notjson");
    }

    @Test
    void theSameKeyInThreeNamespacesHoldsThreeValues() throws Exception {
        assertThat(define(0, "ns-a", "{\"replicas\": 2, \"writeQuorum\": 2, \"valueBytesMax\": 64}").statusCode())
                .isEqualTo(201);
        assertThat(define(1, "ns-b", "{\"replicas\": 3, \"writeQuorum\": 3}").statusCode()).isEqualTo(201);
        awaitEveryNodeLists("ns-a", "ns-b");
        Id key = Id.ofName("shared-key");
        assertThat(put(0, "/v1/keys/", key, "in-default").statusCode()).isEqualTo(201);
        HttpResponse<String> inA = put(1, "/v1/namespaces/ns-a/keys/", key, "in-a");
        assertThat(inA.statusCode()).as(inA.body()).isEqualTo(201);
        assertThat(inA.headers().firstValue("Location").orElseThrow()).startsWith("/v1/namespaces/ns-a/keys/");
        assertThat(put(2, "/v1/namespaces/ns-b/keys/", key, "in-b").statusCode()).isEqualTo(201);
        // The default namespace by its name is /v1/keys.
        assertThat(put(2, "/v1/namespaces/default/keys/", key, "in-default-too").statusCode()).isEqualTo(201);

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(values(2, "/v1/keys/", key)).containsExactlyInAnyOrder("in-default", "in-default-too");
            assertThat(values(0, "/v1/namespaces/ns-a/keys/", key)).containsExactly("in-a");
            assertThat(values(1, "/v1/namespaces/ns-b/keys/", key)).containsExactly("in-b");
        });
        assertProblem(put(0, "/v1/namespaces/ns-a/keys/", key, "x".repeat(65)), 413, "namespace 'ns-a'");
        assertThat(put(0, "/v1/namespaces/ns-b/keys/", key, "x".repeat(65)).statusCode()).isEqualTo(201);
        assertProblem(get(0, "/v1/namespaces/nowhere/keys/" + key.toHex()), 404, "no namespace 'nowhere'");
        assertProblem(get(0, "/v1/namespaces/Bad!/keys/" + key.toHex()), 400, "not a namespace name");

        try (SseTestClient watch = SseTestClient.open(HTTP,
                URI.create(base(2) + "/v1/namespaces/ns-a/keys/" + key.toHex() + "/watch"), null)) {
            assertThat(watch.status()).isEqualTo(200);
            List<Event> first = watch.until(e -> e.name().equals("ready"));
            assertThat(first).hasSize(2);
            assertThat(first.get(0).data().get("value").asText()).isEqualTo(b64("in-a"));
        }
        Timer puts = cluster.node(1).meterRegistry().find("rattan.gateway.namespace.requests")
                .tags("namespace", "ns-a", "op", "put", "status", "ok").timer();
        assertThat(puts).isNotNull();
        assertThat(puts.count()).isEqualTo(1);
    }

    @Test
    void aRetiredNamespaceLosesItsKeysAndItsName() throws Exception {
        assertThat(define(0, "gone", "{\"replicas\": 2}").statusCode()).isEqualTo(201);
        awaitEveryNodeLists("gone");
        Id key = Id.ofName("retired-key");
        assertThat(put(1, "/v1/namespaces/gone/keys/", key, "soon-gone").statusCode()).isEqualTo(201);

        HttpResponse<String> retired = send(1, "/admin/namespaces/gone", "DELETE", null);
        assertThat(retired.statusCode()).as(retired.body()).isEqualTo(200);
        assertThat(JSON.readTree(retired.body()).get("retired").asBoolean()).isTrue();
        await().atMost(WAIT).untilAsserted(() -> {
            for (int i = 0; i < cluster.size(); i++) {
                assertProblem(get(i, "/v1/namespaces/gone/keys/" + key.toHex()), 404, "retired");
            }
        });
        assertProblem(define(0, "gone", "{\"replicas\": 2}"), 409, "never reused");
        assertThat(send(0, "/admin/namespaces/gone", "DELETE", null).statusCode()).isEqualTo(200);
        assertProblem(send(0, "/admin/namespaces/never-made", "DELETE", null), 404, "never-made");
        assertThat(find(JSON.readTree(get(2, "/v1/namespaces").body()).get("namespaces"), "gone")
                .get("retired").asBoolean()).isTrue();
    }

    @Test
    void aJavaClientOfANamespaceSeesOnlyItsValues() throws Exception {
        assertThat(define(2, "client-ns", "{\"replicas\": 2, \"writeQuorum\": 2}").statusCode()).isEqualTo(201);
        awaitEveryNodeLists("client-ns");
        try (RattanClient client = RattanClient.builder().gateway(address(0)).gateway(address(1))
                .totalTimeout(Duration.ofSeconds(30)).build()) {
            RattanClient scoped = client.namespace("client-ns");
            Id key = RattanClient.key("client-key");
            client.putSync(key, utf8("default-value"), Duration.ofMinutes(10));
            scoped.putSync(key, utf8("scoped-value"), Duration.ofMinutes(10), utf8("secret"));
            OwnerKey owner = OwnerKey.generate();
            scoped.putOwnedSync(RattanClient.key("owned-key"), utf8("owned"), owner, 1, 1,
                    Instant.now().plusSeconds(600));
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(texts(client.getSync(key))).containsExactly("default-value");
                assertThat(texts(scoped.getSync(key))).containsExactly("scoped-value");
                assertThat(texts(scoped.getSync(RattanClient.key("owned-key")))).containsExactly("owned");
                assertThat(client.getSync(RattanClient.key("owned-key")).values()).isEmpty();
            });
            // A watch in the namespace (CLIENT_WATCH in IN_NAMESPACE) hears its values, not the default's.
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (Watch watch = scoped.watch(key, new WatchListener() {
                @Override
                public void onValue(GetResult.Value v) {
                    heard.add("value " + v.utf8());
                }

                @Override
                public void onReady() {
                    heard.add("ready");
                }

                @Override
                public void onRemoved(GetResult.Value v) {
                    heard.add("removed " + v.utf8());
                }
            })) {
                assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo("value scoped-value");
                assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo("ready");
                assertThat(scoped.removeSync(key, RattanClient.valueHash(utf8("scoped-value")), utf8("secret"),
                        Duration.ofMinutes(10))).isTrue();
                assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo("removed scoped-value");
                client.putSync(key, utf8("default-again"), Duration.ofMinutes(10));
                scoped.putSync(key, utf8("scoped-again"), Duration.ofMinutes(10));
                assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo("value scoped-again");
            }
            assertThat(texts(client.getSync(key))).containsExactlyInAnyOrder("default-value", "default-again");
            RattanException unknown = catchThrowableOfType(
                    () -> client.namespace("not-made").getSync(key), RattanException.class);
            assertThat(unknown.status()).isEqualTo(Status.NOT_FOUND);
        }
    }

    // ---- helpers ----

    private static void awaitEveryNodeLists(String... names) {
        await().atMost(WAIT).untilAsserted(() -> {
            for (int i = 0; i < cluster.size(); i++) {
                JsonNode list = JSON.readTree(get(i, "/v1/namespaces").body()).get("namespaces");
                for (String name : names) {
                    assertThat(find(list, name)).as("node " + i + " lists " + name).isNotNull();
                }
            }
        });
    }

    private static JsonNode find(JsonNode list, String name) {
        for (JsonNode n : list) {
            if (n.get("name").asText().equals(name)) {
                return n;
            }
        }
        return null;
    }

    private static void assertProblem(HttpResponse<String> r, int status, String detailPart) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(detail(r)).contains(detailPart);
    }

    private static String detail(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body()).get("detail").asText();
    }

    private static HttpResponse<String> define(int node, String name, String body) throws Exception {
        return send(node, "/admin/namespaces/" + name, "PUT", body);
    }

    private static HttpResponse<String> get(int node, String path) throws Exception {
        return send(node, path, "GET", null);
    }

    private static HttpResponse<String> put(int node, String keysPath, Id key, String value) throws Exception {
        return send(node, keysPath + key.toHex() + "?ttl=600", "POST", value);
    }

    private static List<String> values(int node, String keysPath, Id key) throws Exception {
        HttpResponse<String> r = get(node, keysPath + key.toHex());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> texts = new ArrayList<>();
        JSON.readTree(r.body()).get("values").forEach(v ->
                texts.add(new String(Base64.getDecoder().decode(v.get("value").asText()), StandardCharsets.UTF_8)));
        return texts;
    }

    private static HttpResponse<String> send(int node, String path, String method, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body);
        return HTTP.send(HttpRequest.newBuilder(URI.create(base(node) + path)).timeout(Duration.ofSeconds(30))
                .method(method, publisher).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String base(int node) {
        return "http://127.0.0.1:" + cluster.node(node).httpAddress().getPort();
    }

    private static String address(int node) {
        return "127.0.0.1:" + cluster.node(node).gatewayAddress().getPort();
    }

    private static List<String> texts(GetResult result) {
        return result.values().stream().map(GetResult.Value::utf8).toList();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(utf8(text));
    }
}
