package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage on every port of a live node: the offending connection is closed and the node goes on serving valid
 * requests, through the same real sockets and RocksDB as production.
 */
class HostileInputTest {

    @TempDir
    static Path dir;
    static HostileCluster nodes;
    static LocalCluster cluster;
    static RattanClient client;
    static final Id KEY = Id.ofName("hostile-input-test");
    static final byte[] VALUE = "still here".getBytes(StandardCharsets.UTF_8);

    @BeforeAll
    static void startCluster() throws IOException {
        nodes = HostileCluster.start(4, dir, NodeConfig.defaults().withLeafSetHalf(3));
        cluster = nodes.cluster;
        client = nodes.client;
        client.putSync(KEY, VALUE, Duration.ofMinutes(10));
    }

    @AfterAll
    static void stop() {
        HostileCluster.close(nodes);
    }

    private static void assertStillServes() {
        GetResult r = client.getSync(KEY);
        assertThat(r.values()).hasSize(1);
        assertThat(r.values().get(0).bytes()).isEqualTo(VALUE);
    }

    /** Writes {@code bytes} and reports whether the node closed the connection (read returns -1 or resets). */
    private static boolean closedAfter(InetSocketAddress to, byte[] bytes) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(to, 5_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            try {
                while (true) {
                    int b = in.read();
                    if (b < 0) {
                        return true;
                    }
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static InetSocketAddress peerPort(RattanNode n) {
        Address a = n.contact().address();
        return new InetSocketAddress(a.host(), a.port());
    }

    @Test
    void garbageFrameOnThePeerPortClosesTheConnection() throws IOException {
        // A plausible length followed by bytes that are no frame.
        byte[] frame = new byte[4 + 64];
        frame[3] = 64;
        System.arraycopy(randomBytes(64, 1), 0, frame, 4, 64);
        frame[4] = 99; // unknown codec version
        assertThat(closedAfter(peerPort(cluster.node(1)), frame)).isTrue();
        assertStillServes();
    }

    @Test
    void oversizedLengthOnThePeerPortClosesTheConnection() throws IOException {
        assertThat(closedAfter(peerPort(cluster.node(1)), new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}))
                .isTrue();
        assertStillServes();
    }

    @Test
    void garbageAndOversizedLengthsOnTheGatewayPortCloseTheConnection() throws IOException {
        RattanNode gw = cluster.node(0);
        assertThat(closedAfter(gw.gatewayAddress(), new byte[] {0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8})).isTrue();
        assertThat(closedAfter(gw.gatewayAddress(), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x10}))
                .isTrue();
        assertStillServes();
    }

    @Test
    void garbageOnTheHttpPortIsAnsweredAndTheNodeKeepsServing() throws Exception {
        RattanNode gw = cluster.node(0);
        assertThat(closedAfter(gw.httpAddress(), randomBytes(4096, 7))).isTrue();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gw.httpAddress().getPort() + "/v1/keys/name:hostile-input-test")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(java.util.Base64.getEncoder().encodeToString(VALUE));
        HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gw.httpAddress().getPort() + "/v1/keys/not-a-key")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertStillServes();
    }

    @Test
    void aClientErrorIsPreciseOverTheBinaryRpc() {
        byte[] tooBig = new byte[NodeConfig.defaults().valueBytesMax() + 1];
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> client.putSync(Id.ofName("big"), tooBig, Duration.ofMinutes(1)))
                .hasMessageContaining("value too large");
        assertStillServes();
        assertThat(List.of(cluster.liveNodes().size())).containsExactly(4);
    }
}
