package io.rattan.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import io.rattan.node.identity.NodeKeyFile;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client ports over TLS, with bearer tokens on HTTP, on a real node over real sockets: HTTP requests without a
 * token, or with one the file does not hold, get 401 (probes need none); a token's requests are served and count
 * against the token's storage share, not the source address's; a token added to the file is taken without a
 * restart; plain HTTP is not answered. The Java client speaks TLS to the binary gateway, trusting the CA; a client
 * in plaintext, or trusting another CA, gets nothing through.
 */
class ClientAccessNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int SHARE_BYTES = 1500;

    @TempDir
    Path dir;
    private RattanNode node;
    private ClusterCa ca;
    private Path caFile;
    private HttpClient https;
    private Path tokens;
    private String alice;
    private String bob;

    @BeforeEach
    void start() throws Exception {
        ca = ClusterCa.create("ca", Duration.ofDays(1), new SplittableRandom(39));
        caFile = dir.resolve("ca.crt");
        Files.writeString(caFile, CertificatePem.encode(ca.certificate()));
        Path data = dir.resolve("n");
        ca.certifyNode(data, Duration.ofDays(1), List.of("127.0.0.1"), new SecureRandom());
        tokens = dir.resolve("tokens.txt");
        alice = BearerTokens.newToken(new SecureRandom());
        bob = BearerTokens.newToken(new SecureRandom());
        Files.writeString(tokens, "# clients\n" + BearerTokens.line("alice", alice) + "\n"
                + BearerTokens.line("bob", bob) + "\n");
        NodeOptions options = NodeOptions.singleNode(data)
                .withLimits(io.rattan.node.limits.Limits.defaults().withClientStorageBytes(SHARE_BYTES))
                .withClientAccess(new ClientAccessFiles(data.resolve(TlsFiles.NODE_CERT),
                        data.resolve(NodeKeyFile.FILE_NAME), tokens));
        node = RattanNode.start(options);
        https = HttpClient.newBuilder().sslContext(ca.trustingContext()).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.halt();
        }
    }

    @Test
    void withoutATokenOnlyProbesAreServed() throws Exception {
        assertThat(send(get("/health"), null).statusCode()).isEqualTo(200);
        HttpResponse<String> none = send(put("name:k", 10), null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("Bearer"));
        assertThat(send(put("name:k", 10), "not-a-token").statusCode()).isEqualTo(401);
        assertThat(send(get("/v1/keys/name:k"), null).statusCode()).isEqualTo(401);
        assertThat(send(get("/metrics"), null).statusCode()).isEqualTo(401);
        assertThat(node.meterRegistry().get("rattan.http.unauthorized").functionCounter().count()).isEqualTo(4);
    }

    @Test
    void aTokensRequestsAreServedAndCountAgainstItsOwnShare() throws Exception {
        assertThat(send(put("name:a1", 1000), alice).statusCode()).isEqualTo(201);
        HttpResponse<String> got = send(get("/v1/keys/name:a1"), alice);
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).contains("\"values\":[{");
        // alice's share is full; bob, from the same address, has his own.
        HttpResponse<String> full = send(put("name:a2", 1000), alice);
        assertThat(full.statusCode()).isEqualTo(429);
        assertThat(full.body()).contains("token alice");
        assertThat(send(put("name:b1", 1000), bob).statusCode()).isEqualTo(201);
    }

    @Test
    void aTokenAddedToTheFileIsTakenWithoutARestart() throws Exception {
        String carol = BearerTokens.newToken(new SecureRandom());
        assertThat(send(put("name:c", 10), carol).statusCode()).isEqualTo(401);
        Files.writeString(tokens, BearerTokens.line("carol", carol) + "\n", StandardOpenOption.APPEND);
        Awaitility.await().atMost(WAIT).until(() -> send(put("name:c", 10), carol).statusCode() == 201);
        // A line removed takes its token away.
        Files.writeString(tokens, BearerTokens.line("carol", carol) + "\n");
        Awaitility.await().atMost(WAIT).until(() -> send(put("name:a", 10), alice).statusCode() == 401);
    }

    @Test
    void theJavaClientSpeaksTlsToTheBinaryGateway() throws Exception {
        Address gateway = new Address("127.0.0.1", node.gatewayAddress().getPort());
        try (RattanClient client = RattanClient.builder().gateway(gateway).tlsTrusting(caFile).build()) {
            Id key = Id.ofName("over-tls");
            assertThat(client.putSync(key, new byte[100], Duration.ofMinutes(5)).replicas()).isEqualTo(1);
            assertThat(client.getSync(key).values()).hasSize(1);
        }
        Path otherCa = dir.resolve("other.crt");
        Files.writeString(otherCa, CertificatePem.encode(
                ClusterCa.create("other", Duration.ofDays(1), new SplittableRandom(40)).certificate()));
        // A client in plaintext, one trusting another CA, and one dialing a name the certificate does not carry
        // (it names 127.0.0.1 only) get nothing through; nothing of theirs is stored.
        try (RattanClient plain = RattanClient.builder().gateway(gateway).loadRing(false)
                .totalTimeout(Duration.ofSeconds(3)).build();
             RattanClient stranger = RattanClient.builder().gateway(gateway).loadRing(false).tlsTrusting(otherCa)
                     .totalTimeout(Duration.ofSeconds(3)).build();
             RattanClient misnamed = RattanClient.builder().gateway(new Address("localhost", gateway.port()))
                     .loadRing(false).tlsTrusting(caFile).totalTimeout(Duration.ofSeconds(3)).build();
             RattanClient reader = RattanClient.builder().gateway(gateway).tlsTrusting(caFile).build()) {
            for (RattanClient refused : List.of(plain, stranger, misnamed)) {
                Id key = Id.ofName("refused-" + refused.hashCode());
                assertThatThrownBy(() -> refused.putSync(key, new byte[10], Duration.ofMinutes(5)))
                        .isInstanceOf(RattanException.class);
                assertThat(reader.getSync(key).values()).isEmpty();
            }
        }
    }

    @Test
    void withClientCertificatesRequiredEachClientIsKnownByItsCertificate() throws Exception {
        node.halt();
        Path clients = dir.resolve("clients");
        ca.certifyClient(clients, "alice", Duration.ofDays(1), new SecureRandom());
        ca.certifyClient(clients, "bob", Duration.ofDays(1), new SecureRandom());
        ClusterCa other = ClusterCa.create("other", Duration.ofDays(1), new SplittableRandom(42));
        other.certifyClient(dir.resolve("strangers"), "mallory", Duration.ofDays(1), new SecureRandom());
        Path data = dir.resolve("n");
        node = RattanNode.start(NodeOptions.singleNode(data)
                .withLimits(io.rattan.node.limits.Limits.defaults().withClientStorageBytes(SHARE_BYTES))
                .withClientAccess(new ClientAccessFiles(data.resolve(TlsFiles.NODE_CERT),
                        data.resolve(NodeKeyFile.FILE_NAME), null, caFile)));
        Address gateway = new Address("127.0.0.1", node.gatewayAddress().getPort());
        try (RattanClient alice = client(gateway, clients, "alice", Duration.ofSeconds(10));
             RattanClient bob = client(gateway, clients, "bob", Duration.ofSeconds(10));
             RattanClient mallory = client(gateway, dir.resolve("strangers"), "mallory", Duration.ofSeconds(3));
             RattanClient anonymous = RattanClient.builder().gateway(gateway).loadRing(false).tlsTrusting(caFile)
                     .totalTimeout(Duration.ofSeconds(3)).build()) {
            // An HTTPS request without a client certificate is refused at the handshake, probes included.
            assertThatThrownBy(() -> send(get("/health"), null)).isInstanceOf(IOException.class);
            assertThat(alice.putSync(Id.ofName("a1"), new byte[1000], Duration.ofMinutes(5)).replicas()).isEqualTo(1);
            // alice's share is full; bob, from the same address, has his own.
            assertThatThrownBy(() -> alice.putSync(Id.ofName("a2"), new byte[1000], Duration.ofMinutes(5)))
                    .isInstanceOf(RattanException.class).hasMessageContaining("cert alice");
            assertThat(bob.putSync(Id.ofName("b1"), new byte[1000], Duration.ofMinutes(5)).replicas()).isEqualTo(1);
            assertThatThrownBy(() -> mallory.putSync(Id.ofName("m"), new byte[10], Duration.ofMinutes(5)))
                    .isInstanceOf(RattanException.class);
            assertThatThrownBy(() -> anonymous.putSync(Id.ofName("x"), new byte[10], Duration.ofMinutes(5)))
                    .isInstanceOf(RattanException.class);
            assertThat(bob.getSync(Id.ofName("m")).values()).isEmpty();
            assertThat(bob.getSync(Id.ofName("x")).values()).isEmpty();
        }
    }

    private RattanClient client(Address gateway, Path dir, String name, Duration total) throws IOException {
        return RattanClient.builder().gateway(gateway).loadRing(false).totalTimeout(total)
                .tlsTrusting(caFile, dir.resolve(name + ".crt"), dir.resolve(name + ".key")).build();
    }

    @Test
    void plainHttpIsNotAnswered() {
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpAddress().getPort()
                + "/health")).timeout(Duration.ofSeconds(30)).build();
        assertThatThrownBy(() -> plain.send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
    }

    private HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(uri(path)).GET();
    }

    private HttpRequest.Builder put(String key, int bytes) {
        return HttpRequest.newBuilder(uri("/v1/keys/" + key + "?ttl=600"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[bytes]));
    }

    private URI uri(String path) {
        return URI.create("https://127.0.0.1:" + node.httpAddress().getPort() + path);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token) throws Exception {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return https.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
