package io.rattan.node.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, proof 4, on a real node through real sockets: clients bound to distinct 127.0.0.x addresses. The limits
 * are set low (a rate of 40 per second, a share of 4 KiB) so that driving ten times the rate stays cheap; the code
 * path is the one the defaults take.
 */
class ClientLimitsTest {

    static final int RATE = 40;
    static final long SHARE = 4096;

    @TempDir
    static Path dir;
    static RattanNode node;

    @BeforeAll
    static void start() throws IOException {
        Limits limits = Limits.defaults().withClientRequestsPerSecond(RATE).withClientStorageBytes(SHARE);
        node = RattanNode.start(NodeOptions.singleNode(dir.resolve("node")).withLimits(limits));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aFlooderGets429WithRetryAfterWhileTenNormalClientsAllSucceed() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(11);
        try {
            // The flooder: 10 x the rate for 2 s, 800 gets pipelined in batches of 100 on one keep-alive connection
            // from 127.0.0.2, so that it drives the gateway as fast as the gateway answers, however loaded the
            // machine is.
            int floodRequests = 10 * RATE * 2;
            CompletableFuture<long[]> flood = CompletableFuture.supplyAsync(() -> {
                long[] counts = new long[4]; // ok, 429 with Retry-After, other, nanoseconds taken
                try (RawHttp http = new RawHttp("127.0.0.2", node.httpAddress())) {
                    long start = System.nanoTime();
                    for (int batch = 0; batch < floodRequests / 100; batch++) {
                        for (int i = 0; i < 100; i++) {
                            http.write("GET", "/v1/keys/name:flood", new byte[0], java.util.Map.of());
                        }
                        for (int i = 0; i < 100; i++) {
                            RawHttp.Response r = http.read();
                            if (r.status() == 200) {
                                counts[0]++;
                            } else if (r.status() == 429 && r.headers().containsKey("retry-after")
                                    && r.text().contains("rate-limited")) {
                                counts[1]++;
                            } else {
                                counts[2]++;
                            }
                        }
                    }
                    counts[3] = System.nanoTime() - start;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                return counts;
            }, pool);
            // Ten normal clients, 10 gets each at a fifth of the rate, from 127.0.0.10..19.
            List<CompletableFuture<int[]>> normal = new ArrayList<>();
            for (int c = 0; c < 10; c++) {
                String ip = "127.0.0." + (10 + c);
                normal.add(CompletableFuture.supplyAsync(() -> {
                    int[] counts = new int[2]; // ok, failed
                    try (RawHttp http = new RawHttp(ip, node.httpAddress())) {
                        long start = System.nanoTime();
                        long intervalNanos = 1_000_000_000L / (RATE / 5);
                        for (int i = 0; i < 10; i++) {
                            counts[http.get("/v1/keys/name:normal").status() == 200 ? 0 : 1]++;
                            sleepUntil(start + (i + 1) * intervalNanos);
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                    return counts;
                }, pool));
            }
            long[] f = flood.get();
            int ok = 0;
            int failed = 0;
            for (CompletableFuture<int[]> n : normal) {
                ok += n.get()[0];
                failed += n.get()[1];
            }
            double seconds = f[3] / 1e9;
            System.out.printf("flooder: %d ok, %d 429, %d other in %.2f s; normal clients: %d ok, %d failed%n",
                    f[0], f[1], f[2], seconds, ok, failed);
            assertThat(f[1]).as("429s with Retry-After").isGreaterThan(0);
            assertThat(f[2]).as("other answers to the flooder").isZero();
            // At most a second's burst plus the rate for as long as the flood took got through.
            assertThat(f[0]).isLessThanOrEqualTo((long) (RATE * (seconds + 1)) + 1);
            assertThat(ok).isEqualTo(100);
            assertThat((double) ok / (ok + failed)).isGreaterThanOrEqualTo(0.999);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theBinaryRpcAnswersRateLimitedWithItsWait() throws Exception {
        try (RawFrames rpc = new RawFrames("127.0.0.3", node.gatewayAddress())) {
            int limited = 0;
            int retryAfter = 0;
            for (int i = 0; i < RATE * 3; i++) {
                rpc.send(new Envelope(null, i, ClientGet.of(Id.ofName("binary"))));
            }
            for (int i = 0; i < RATE * 3; i++) {
                if (rpc.receive().body() instanceof ErrorReply e && e.status() == Status.RATE_LIMITED) {
                    limited++;
                    retryAfter = e.retryAfterMillis();
                }
            }
            assertThat(limited).isGreaterThan(0);
            assertThat(retryAfter).isPositive();
        }
        assertThat(node.clientGuard().rateLimited()).isPositive();
    }

    @Test
    void theJavaClientHonoursRateLimitedAndEveryPutSucceeds() {
        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", node.gatewayAddress().getPort()))
                .maxRetries(30)
                .totalTimeout(Duration.ofSeconds(60))
                .build()) {
            // Three times the rate, as fast as the client goes: every put completes, some after waiting.
            List<CompletableFuture<?>> puts = new ArrayList<>();
            for (int i = 0; i < RATE * 3; i++) {
                puts.add(client.put(Id.ofName("java-client"), Bytes.utf8("v" + i).toByteArray(),
                        Duration.ofSeconds(5)));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
            System.out.printf("java client: %d puts, %d attempts rate-limited%n", puts.size(),
                    client.rateLimitedAttempts());
            assertThat(client.rateLimitedAttempts()).isPositive();
        }
    }

    @Test
    void aClientThatFillsItsShareIsRefusedAndAnotherClientsPutIsAccepted() throws Exception {
        byte[] value = new byte[1024];
        int accepted = 0;
        RawHttp.Response refused = null;
        try (RawHttp filler = new RawHttp("127.0.0.4", node.httpAddress())) {
            for (int i = 0; i < 10 && refused == null; i++) {
                value[0] = (byte) i;
                RawHttp.Response r = filler.post("/v1/keys/name:share-" + i + "?ttl=600", value);
                if (r.status() == 201) {
                    accepted++;
                } else {
                    refused = r;
                }
            }
        }
        assertThat(accepted).isEqualTo((int) (SHARE / value.length));
        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text()).contains("quota-exceeded");
        assertThat(refused.headers()).containsKey("retry-after");
        // The same client over the binary RPC: the same share, refused with a typed status.
        try (RawFrames rpc = new RawFrames("127.0.0.4", node.gatewayAddress())) {
            Envelope reply = rpc.call(new Envelope(null, 1,
                    new ClientPut(Id.ofName("share-binary"), Bytes.wrap(value), 600, Bytes.EMPTY)));
            assertThat(reply.body()).isInstanceOfSatisfying(ErrorReply.class,
                    e -> assertThat(e.status()).isEqualTo(Status.QUOTA_EXCEEDED));
        }
        // Another client's put is accepted, over both gateways.
        try (RawHttp other = new RawHttp("127.0.0.5", node.httpAddress());
             RawFrames rpc = new RawFrames("127.0.0.5", node.gatewayAddress())) {
            assertThat(other.post("/v1/keys/name:share-other?ttl=600", value).status()).isEqualTo(201);
            value[1] = 1;
            Envelope reply = rpc.call(new Envelope(null, 1,
                    new ClientPut(Id.ofName("share-other"), Bytes.wrap(value), 600, Bytes.EMPTY)));
            assertThat(reply.body()).isInstanceOfSatisfying(PutReply.class,
                    p -> assertThat(p.status()).isEqualTo(Status.OK));
        }
        assertThat(node.clientGuard().quotaExceeded()).isGreaterThanOrEqualTo(2);
    }

    private static void sleepUntil(long nanoTime) {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            try {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
