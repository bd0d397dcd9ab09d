package io.rattan.bench.jmh;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.rattan.api.Address;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.limits.Limits;
import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.CertificatePem;
import io.rattan.node.tls.ClientAccessFiles;
import io.rattan.node.tls.ClusterCa;
import io.rattan.node.tls.TlsFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What TLS costs, side by side with plaintext in one run: two nodes on loopback that each keep one copy (k = W = 1),
 * and a 1 KiB value whose only copy is at the second node. {@code peerGet}: a get through the first node's binary
 * gateway, which the first node forwards to the second over their peer connection (mutual TLS with {@code tls}).
 * {@code httpGet}: the same get through the first node's HTTP gateway (HTTPS and a bearer token with {@code tls}),
 * on a kept-alive connection. One request in flight; the peer connection and the HTTP connection are open before
 * the measurement, so handshakes are not in the figures, only what every request pays.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TlsCostBenchmark {

    @Param({"plain", "tls"})
    public String mode;

    private Path dir;
    private RattanNode first;
    private RattanNode second;
    private RattanClient client;
    private HttpClient http;
    private HttpRequest httpGet;
    private Id key;
    private final GetOptions oneCopy = GetOptions.of(RoutingMode.DELAY_AWARE);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("rattan-jmh-tls");
        boolean tls = mode.equals("tls");
        ClusterCa ca = ClusterCa.create("jmh", Duration.ofDays(1), new SecureRandom());
        Path caFile = dir.resolve("ca.crt");
        Files.writeString(caFile, CertificatePem.encode(ca.certificate()));
        String token = BearerTokens.newToken(new SecureRandom());
        Path tokens = dir.resolve("tokens.txt");
        Files.writeString(tokens, BearerTokens.line("jmh", token) + "\n");
        first = RattanNode.start(options(dir.resolve("a"), ca, caFile, tokens, tls));
        second = RattanNode.start(options(dir.resolve("b"), ca, caFile, tokens, tls)
                .withBootstrap(List.of(first.contact().address())));
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (first.status().leafSet().size() != 1 || !second.isJoined()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the two nodes did not join each other within a minute");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        // The second node's own id is the key it is closest to: the value's only copy is there.
        key = second.contact().id();
        client = RattanClient.builder().gateway(new Address("127.0.0.1", first.gatewayAddress().getPort())).build();
        client.putSync(key, new byte[1024], Duration.ofHours(1));
        http = tls ? HttpClient.newBuilder().sslContext(ca.trustingContext()).build() : HttpClient.newHttpClient();
        HttpRequest.Builder get = HttpRequest.newBuilder(URI.create((tls ? "https" : "http") + "://127.0.0.1:"
                + first.httpAddress().getPort() + "/v1/keys/" + key.toHex()));
        httpGet = (tls ? get.header("Authorization", "Bearer " + token) : get).build();
    }

    private static NodeOptions options(Path data, ClusterCa ca, Path caFile, Path tokens, boolean tls)
            throws IOException {
        // No client rate: one client here asks faster than the default per-client rate, which would measure its
        // back-off.
        NodeOptions plain = NodeOptions.local(data).withConfig(NodeConfig.defaults().withReplicas(1, 1))
                .withLimits(Limits.defaults().withClientRequestsPerSecond(Limits.OFF));
        if (!tls) {
            return plain;
        }
        ca.certifyNode(data, Duration.ofDays(1), List.of("127.0.0.1"), new SecureRandom());
        return plain.withTls(TlsFiles.inDataDir(caFile, data)).withClientAccess(new ClientAccessFiles(
                data.resolve(TlsFiles.NODE_CERT), data.resolve(NodeKeyFile.FILE_NAME), tokens));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        client.close();
        second.close();
        first.close();
        MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
    }

    @Benchmark
    public GetResult peerGet() throws InterruptedException, ExecutionException {
        return client.get(key, oneCopy).get();
    }

    @Benchmark
    public int httpGet() throws IOException, InterruptedException {
        HttpResponse<byte[]> r = http.send(httpGet, HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + r.statusCode());
        }
        return r.body().length;
    }
}
