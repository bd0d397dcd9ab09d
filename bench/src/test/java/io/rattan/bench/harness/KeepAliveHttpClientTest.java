package io.rattan.bench.harness;

import static io.rattan.bench.harness.HttpTestServer.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpMethod;
import io.rattan.api.Address;
import io.rattan.bench.harness.KeepAliveHttpClient.Answer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The harness's HTTP client against a real local HTTP server over real sockets. */
class KeepAliveHttpClientTest {

    private final HttpTestServer server = new HttpTestServer();
    private KeepAliveHttpClient client = new KeepAliveHttpClient(Duration.ofSeconds(10), 1);

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    @Test
    void sequentialRequestsShareOneConnection() {
        for (int i = 0; i < 100; i++) {
            Answer a = get("/ok/" + i);
            assertThat(a.status()).isEqualTo(200);
            assertThat(text(a.body())).isEqualTo("ok /ok/" + i);
        }
        assertThat(server.requests()).isEqualTo(100);
        assertThat(server.accepted()).isEqualTo(1);
        assertThat(client.connectionsOpened()).isEqualTo(1);
    }

    @Test
    void concurrentRequestsOpenAConnectionEachAndTheNextOnesReuseThem() {
        int inFlight = 8;
        round(inFlight);
        int afterFirst = server.accepted();
        assertThat(afterFirst).isBetween(1, inFlight);
        for (int r = 0; r < 5; r++) {
            round(inFlight);
        }
        assertThat(server.accepted()).isEqualTo(afterFirst);
        assertThat(server.requests()).isEqualTo(6 * inFlight);
    }

    @Test
    void anErrorStatusComesBackWithItsBodyAndKeepsTheConnection() {
        Answer a = get("/status/503");
        assertThat(a.status()).isEqualTo(503);
        assertThat(text(a.body())).isEqualTo("status 503");
        assertThat(get("/ok/after").status()).isEqualTo(200);
        assertThat(server.accepted()).isEqualTo(1);
    }

    @Test
    void aPostCarriesItsBodyAndContentType() {
        Answer a = client.send(server.address(), HttpMethod.POST, "/echo", "application/octet-stream",
                "a value".getBytes(StandardCharsets.UTF_8)).join();
        assertThat(a.status()).isEqualTo(201);
        assertThat(text(a.body())).isEqualTo("application/octet-stream|a value");
    }

    @Test
    void aChunkedAnswerIsReadToItsEndAndItsConnectionReused() {
        Answer a = get("/chunked");
        assertThat(a.status()).isEqualTo(200);
        assertThat(text(a.body())).isEqualTo("line 1\nline 2\n");
        assertThat(get("/ok/after").status()).isEqualTo(200);
        assertThat(server.accepted()).isEqualTo(1);
    }

    @Test
    void answersThatEndTheirConnectionAreWholeAndTheNextRequestConnectsAgain() {
        Answer unframed = get("/unframed");
        assertThat(text(unframed.body())).isEqualTo("until the end");
        Answer closing = get("/close");
        assertThat(text(closing.body())).isEqualTo("bye");
        assertThat(get("/ok/after").status()).isEqualTo(200);
        assertThat(server.accepted()).isEqualTo(3);
    }

    @Test
    void noAnswerInTimeIsATimeoutAndItsConnectionIsClosed() {
        client.close();
        client = new KeepAliveHttpClient(Duration.ofMillis(300), 1);
        Throwable e = failure(client.send(server.address(), HttpMethod.GET, "/stall", null, null));
        assertThat(e).isInstanceOf(TimeoutException.class).hasMessageContaining("/stall");
        // The stalled connection may still get its answer, so it is closed, and the next request opens another.
        await().atMost(Duration.ofSeconds(30)).until(() -> server.open() == 0);
        assertThat(get("/ok/after").status()).isEqualTo(200);
        assertThat(server.accepted()).isEqualTo(2);
    }

    @Test
    void aRefusedConnectIsAnErrorNotATimeout() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Throwable e = failure(client.send(new Address("127.0.0.1", port), HttpMethod.GET, "/ok/x", null, null));
        assertThat(e).isInstanceOf(IOException.class);
    }

    @Test
    void closeEndsTheConnectionsTheThreadsAndWhatIsInFlight() {
        client.close();
        Set<Thread> before = ioThreads();
        client = new KeepAliveHttpClient(Duration.ofSeconds(10), 1);
        assertThat(get("/ok/1").status()).isEqualTo(200);
        Set<Thread> mine = ioThreads();
        mine.removeAll(before);
        assertThat(mine).isNotEmpty();
        CompletableFuture<Answer> stalled = client.send(server.address(), HttpMethod.GET, "/stall", null, null);
        await().atMost(Duration.ofSeconds(30)).until(() -> server.requests() == 2);
        // The stalled get went on the first get's connection, idle again by then.
        assertThat(server.open()).isEqualTo(1);

        client.close();

        assertThat(failure(stalled)).isInstanceOf(IOException.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> mine.stream().noneMatch(Thread::isAlive));
        await().atMost(Duration.ofSeconds(30)).until(() -> server.open() == 0);
        assertThat(failure(client.send(server.address(), HttpMethod.GET, "/ok/2", null, null)))
                .isInstanceOf(IOException.class);
    }

    private static Set<Thread> ioThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("rattan-bench-http")) {
                threads.add(t);
            }
        }
        return threads;
    }

    private Answer get(String path) {
        return client.send(server.address(), HttpMethod.GET, path, null, null).join();
    }

    /** {@code inFlight} gets sent at once, all answered 200. */
    private void round(int inFlight) {
        List<CompletableFuture<Answer>> fs = new ArrayList<>();
        for (int i = 0; i < inFlight; i++) {
            fs.add(client.send(server.address(), HttpMethod.GET, "/ok/" + i, null, null));
        }
        for (CompletableFuture<Answer> f : fs) {
            assertThat(f.join().status()).isEqualTo(200);
        }
    }

    /** How {@code f} failed; it must fail. */
    static Throwable failure(CompletableFuture<?> f) {
        Throwable e = f.handle((x, t) -> t).join();
        assertThat(e).as("the future's failure").isNotNull();
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
