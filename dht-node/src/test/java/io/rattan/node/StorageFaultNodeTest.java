package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Status;
import io.rattan.client.RattanException;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proof 5 on a real node (real sockets, real RocksDB): a store that runs out of space (RocksDB's SstFileManager
 * limit) answers puts with 507 at once, {@code /ready} says why, metrics count it, values already stored keep being
 * served, and once space returns the node takes puts again with no restart.
 */
class StorageFaultNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aFullStoreAnswers507IsNotReadyKeepsServingAndRecoversWithoutRestart() throws Exception {
        NodeOptions options = NodeOptions.singleNode(dir).withStorage(new RocksDbStore.Settings(false, 256 << 10));
        try (RattanNode node = RattanNode.start(options)) {
            await().atMost(WAIT).until(node::isJoined);
            assertThat(send(node, "GET", "/ready", null).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = fill(node, "");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(507);
            assertThat(refused.body()).contains("storage-full");

            HttpResponse<String> ready = send(node, "GET", "/ready", null);
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("storage fault (FULL)");
            assertThat(send(node, "GET", "/metrics", null).body())
                    .containsPattern("rattan_store_faults_total\\{kind=\"full\"} [1-9]")
                    .contains("rattan_store_faulted 1.0")
                    .containsPattern("rattan_eventloop_lag_seconds\\{quantile=\"0.999\"")
                    .contains("rattan_eventloop_lag_seconds_max");
            // Other keys keep being served.
            assertThat(send(node, "GET", "/v1/keys/name:k0", null).body()).contains("\"values\"");
            assertThat(send(node, "GET", "/v1/keys/name:k0", null).statusCode()).isEqualTo(200);
            // STORAGE_FULL is final for the client; IO_ERROR is retried.
            assertThat(RattanException.isRetryable(Status.STORAGE_FULL)).isFalse();
            assertThat(RattanException.isRetryable(Status.IO_ERROR)).isTrue();

            node.store().setMaxSpaceBytes(0);
            await().atMost(WAIT).until(() -> send(node, "GET", "/ready", null).statusCode() == 200);
            HttpResponse<String> after = send(node, "POST", "/v1/keys/name:after", "space returned");
            assertThat(after.statusCode()).as(after.body()).isEqualTo(201);
            assertThat(send(node, "GET", "/metrics", null).body()).contains("rattan_store_faulted 0.0");
        }
    }

    /**
     * A node whose values all expire once its store is full frees their space by itself (under RocksDB's limit even
     * a purge was refused, and such a store stayed full for good) and takes puts again, with no operator, no restart.
     */
    @Test
    void aFullStoreWhoseValuesExpireTakesPutsAgainByItself() throws Exception {
        NodeOptions options = NodeOptions.singleNode(dir).withStorage(new RocksDbStore.Settings(false, 256 << 10))
                .withConfig(NodeConfig.defaults().withReplicas(1, 1).withPeriods(1_000, 5_000, 1_000));
        try (RattanNode node = RattanNode.start(options)) {
            await().atMost(WAIT).until(node::isJoined);
            HttpResponse<String> refused = fill(node, "?ttl=5");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(507);
            // A lone node's expiry clock settles 30 s after its start, and nothing is purged before.
            await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> send(node, "GET", "/ready", null).statusCode() == 200);
            HttpResponse<String> after = send(node, "POST", "/v1/keys/name:after", "space freed by expiry");
            assertThat(after.statusCode()).as(after.body()).isEqualTo(201);
            assertThat(node.store().sstBytes()).isLessThan(256 << 10);
        }
    }

    /** Puts 1 KB values (with {@code query} on each) until one is refused; the refusal. */
    private HttpResponse<String> fill(RattanNode node, String query) throws IOException, InterruptedException {
        char[] filler = new char[1000];
        int stored = 0;
        for (int i = 0; i < 20_000; i++) {
            Arrays.fill(filler, (char) ('a' + i % 26));
            HttpResponse<String> r = send(node, "POST", "/v1/keys/name:k" + i + query, i + new String(filler, 0, 990));
            if (r.statusCode() == 429) {
                // The gateway's per-IP rate limit (1,024 requests a second), met before the store filled on a fast
                // machine (a fresh-clone run): not the refusal looked for; the same put again, a moment later.
                Thread.sleep(200);
                i--;
            } else if (r.statusCode() == 201) {
                stored++;
            } else {
                assertThat(stored).as("puts stored before the refusal").isPositive();
                return r;
            }
        }
        throw new AssertionError("20,000 puts and none refused: the space limit did not bite");
    }

    private HttpResponse<String> send(RattanNode node, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpAddress().getPort()
                + path)).timeout(WAIT);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
