package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's removal secret never leaves its client or its HTTP gateway (issue 39, rule 2c): five real nodes (Netty,
 * RocksDB, one JVM) store, remove and keep tombstones of values put over HTTP and through the Java client, and no
 * record any node holds carries the secret or a binding made with it; each tombstone carries the value's remove proof,
 * which opens that value only. A value bound to the secret itself (a client of before proofs) is removed only when
 * its owner asks for that ({@code ?legacySecret=true}).
 */
class RemoveProofTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(5, dir, CONFIG);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void overHttpTheSecretStopsAtTheGatewaysAndTheTombstonesHoldTheProof() throws Exception {
        Id key = Id.ofName("remove-proof-http");
        Bytes value = Bytes.utf8("red");
        Bytes secret = Bytes.utf8("one secret for all my values");

        HttpResponse<String> put = send("POST", 0, key, "", secret, value);
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        HttpResponse<String> removed = send("DELETE", 1, key, "/" + value.sha256().toHex(), secret, Bytes.EMPTY);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(204);

        assertTombstonesHoldTheProofOnly(key, value, secret);
        HttpResponse<String> get = send("GET", 2, key, "", null, Bytes.EMPTY);
        assertThat(get.body()).contains("\"values\":[]");
    }

    @Test
    void throughTheJavaClientTheSecretNeverLeavesTheProcess() throws Exception {
        Id key = Id.ofName("remove-proof-client");
        byte[] value = "blue".getBytes(StandardCharsets.UTF_8);
        byte[] secret = "one secret for all my values".getBytes(StandardCharsets.UTF_8);
        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(3).gatewayAddress().getPort()))
                .totalTimeout(Duration.ofSeconds(30)).build()) {
            Bytes hash = client.putSync(key, value, Duration.ofMinutes(10), secret).valueHash();
            assertThatThrownBy(() -> client.removeSync(key, hash, "wrong".getBytes(StandardCharsets.UTF_8),
                    Duration.ofMinutes(10))).as("a wrong secret").isInstanceOfSatisfying(RattanException.class,
                            e -> assertThat(e.status()).isEqualTo(Status.FORBIDDEN));
        }
        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(4).gatewayAddress().getPort()))
                .totalTimeout(Duration.ofSeconds(30)).build()) {
            assertThat(client.removeSync(key, Bytes.of(value).sha256(), secret, Duration.ofMinutes(10))).isTrue();
        }
        assertTombstonesHoldTheProofOnly(key, Bytes.of(value), Bytes.of(secret));
    }

    @Test
    void aValueBoundToTheSecretItselfIsRemovedOnlyWhenItsOwnerSendsTheSecret() throws Exception {
        Id key = Id.ofName("remove-proof-legacy");
        Bytes value = Bytes.utf8("green");
        Bytes secret = Bytes.utf8("s3cret");
        // As a client of before proofs put it: bound to the secret itself.
        Object reply = cluster.node(0).request(new ClientPut(key, value, 600,
                SecretBinding.of(secret, key, value.sha256()))).get(30, TimeUnit.SECONDS);
        assertThat(reply).isInstanceOf(PutReply.class);
        assertThat(((PutReply) reply).status()).isEqualTo(Status.OK);
        String path = "/" + value.sha256().toHex();

        HttpResponse<String> proof = send("DELETE", 1, key, path, secret, Bytes.EMPTY);
        assertThat(proof.statusCode()).as("the proof does not open a binding of the secret itself: " + proof.body())
                .isEqualTo(403);
        HttpResponse<String> legacy = send("DELETE", 1, key, path + "?legacySecret=true", secret, Bytes.EMPTY);
        assertThat(legacy.statusCode()).as(legacy.body()).isEqualTo(204);
        assertThat(send("GET", 2, key, "", null, Bytes.EMPTY).body()).contains("\"values\":[]");
    }

    @Test
    void theJavaClientRemovesAValueBoundToTheSecretItselfOnlyWhenAskedToSendTheSecret() throws Exception {
        Id key = Id.ofName("remove-proof-legacy-client");
        Bytes value = Bytes.utf8("blue");
        byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
        Object reply = cluster.node(0).request(new ClientPut(key, value, 600,
                SecretBinding.of(Bytes.of(secret), key, value.sha256()))).get(30, TimeUnit.SECONDS);
        assertThat(((PutReply) reply).status()).isEqualTo(Status.OK);
        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(3).gatewayAddress().getPort()))
                .totalTimeout(Duration.ofSeconds(30)).build()) {
            assertThatThrownBy(() -> client.removeSync(key, value.sha256(), secret, Duration.ofMinutes(10)))
                    .isInstanceOfSatisfying(RattanException.class,
                            e -> assertThat(e.status()).isEqualTo(Status.FORBIDDEN));
            assertThat(client.removeLegacySync(key, value.sha256(), secret, Duration.ofMinutes(10))).isTrue();
            await().atMost(WAIT).untilAsserted(() -> assertThat(client.getSync(key).values()).isEmpty());
        }
    }

    /**
     * Waits until every replica holds the value's tombstone (removes reach all k), then checks what every node holds
     * under the key: tombstones carrying the proof, and nothing carrying the secret or a binding made with it.
     */
    private static void assertTombstonesHoldTheProofOnly(Id key, Bytes value, Bytes secret) {
        Bytes hash = value.sha256();
        Bytes proof = SecretBinding.proof(secret, key, hash);
        Bytes legacyBinding = SecretBinding.of(secret, key, hash);
        await().atMost(WAIT).untilAsserted(() -> {
            List<StoredRecord> held = held(key);
            assertThat(held).filteredOn(StoredRecord::tombstone).hasSizeGreaterThanOrEqualTo(CONFIG.replicas())
                    .allSatisfy(t -> assertThat(t.secret()).isEqualTo(proof));
            assertThat(held).allSatisfy(r -> {
                assertThat(r.secret()).isNotEqualTo(secret);
                assertThat(r.binding()).isNotEqualTo(legacyBinding);
            });
        });
    }

    private static List<StoredRecord> held(Id key) throws Exception {
        List<StoredRecord> out = new ArrayList<>();
        for (RattanNode n : cluster.liveNodes()) {
            for (StoredRecord r : n.localRecords().get(10, TimeUnit.SECONDS)) {
                if (r.key().equals(key)) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    private HttpResponse<String> send(String method, int node, Id key, String rest, Bytes secret, Bytes body)
            throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + cluster.node(node).httpAddress().getPort() + "/v1/keys/"
                + key.toHex() + rest);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
        if (secret != null) {
            b.header("Rattan-Secret", new String(secret.toByteArray(), StandardCharsets.ISO_8859_1));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
