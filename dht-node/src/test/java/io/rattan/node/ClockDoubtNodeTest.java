package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.node.NodeConfig;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On real nodes (real sockets, real RocksDB): a node whose wall clock is behind the expiry-clock mark its store
 * persisted (its machine's clock was set back while it was down) runs from the mark, behind the true time by however
 * long it was down, so it must not stamp puts' expiries until its peers confirm its clock: as a gateway it holds each
 * put for half the request timeout and answers 503, and {@code /ready} says why; its peer takes puts. Here its one
 * peer can never confirm it (one host never decides), so the refusal is certain whatever the machine's load.
 */
class ClockDoubtNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long AHEAD_MILLIS = 60_000;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aGatewayRestartedBehindItsPersistedMarkHoldsPutsAndAnswers503UntilPeersConfirmItsClock() throws Exception {
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 1);
        Path behind = dir.resolve("b");
        try (RocksDbStore store = RocksDbStore.open(behind.resolve(RattanNode.STORE_DIR), System::currentTimeMillis)) {
            // As if its last reading before a stop had been a minute from now: this wall clock is a minute behind.
            store.clockMark(System.currentTimeMillis() + AHEAD_MILLIS);
        }
        try (RattanNode a = RattanNode.start(NodeOptions.local(dir.resolve("a")).withConfig(config));
             RattanNode b = RattanNode.start(NodeOptions.local(behind).withConfig(config)
                     .withBootstrap(List.of(a.contact().address())))) {
            await().atMost(WAIT).until(() -> a.isJoined() && b.isJoined());
            await().atMost(WAIT).until(() -> send(a, "GET", "/ready").statusCode() == 200);

            long sent = System.nanoTime();
            HttpResponse<String> held = send(b, "POST", "/v1/keys/name:held");
            long heldMillis = (System.nanoTime() - sent) / 1_000_000;

            assertThat(held.statusCode()).as(held.body()).isEqualTo(503);
            assertThat(held.body()).contains("expiry clock");
            assertThat(heldMillis).as("held half the request timeout").isGreaterThanOrEqualTo(
                    config.requestTimeoutMillis() / 2);
            HttpResponse<String> ready = send(b, "GET", "/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("expiry clock");
            HttpResponse<String> taken = send(a, "POST", "/v1/keys/name:taken");
            assertThat(taken.statusCode()).as(taken.body()).isEqualTo(201);
        }
    }

    private HttpResponse<String> send(RattanNode node, String method, String path)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpAddress().getPort()
                + path)).timeout(WAIT);
        b.method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("a value")
                : HttpRequest.BodyPublishers.noBody());
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
