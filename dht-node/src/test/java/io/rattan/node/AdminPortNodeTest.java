package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.node.gateway.http.HttpSurfaces;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator endpoints on an admin port of their own, on a real node: with {@code --http-serves none} the HTTP
 * gateway answers the key API and the probes and 404 for {@code /metrics}, {@code /node} and {@code /admin/...};
 * the admin port answers those and no key API. Without an admin port the HTTP gateway serves everything, as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminPortNodeTest {

    private static final String KEY = "c3".repeat(20);

    @TempDir
    Path dir;
    private RattanNode node;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() {
        if (node != null) {
            node.halt();
        }
    }

    @Test
    void theAdminPortServesTheOperatorEndpointsAndTheHttpGatewayOnlyTheKeyApi() throws Exception {
        node = RattanNode.start(NodeOptions.singleNode(dir).withOperatorEndpoints(new OperatorEndpoints(
                NodeOptions.LOOPBACK, 0, HttpSurfaces.ofOperatorList(List.of("none")))));
        InetSocketAddress client = node.httpAddress();
        InetSocketAddress admin = node.adminAddress();
        assertThat(admin).isNotNull();
        assertThat(admin.getPort()).isNotEqualTo(client.getPort());

        assertThat(send(client, "POST", "/v1/keys/" + KEY + "?ttl=600").statusCode()).isEqualTo(201);
        assertThat(send(client, "GET", "/v1/keys/" + KEY).statusCode()).isEqualTo(200);
        for (String path : List.of("/health", "/ready")) {
            assertThat(send(client, "GET", path).statusCode()).as(path).isEqualTo(200);
            assertThat(send(admin, "GET", path).statusCode()).as(path).isEqualTo(200);
        }
        for (String path : List.of("/metrics", "/node", "/admin/records")) {
            assertThat(send(client, "GET", path).statusCode()).as("client port, " + path).isEqualTo(404);
            HttpResponse<String> r = send(admin, "GET", path);
            assertThat(r.statusCode()).as("admin port, " + path).isEqualTo(200);
        }
        assertThat(send(admin, "GET", "/admin/records").body()).contains(KEY);
        assertThat(send(admin, "GET", "/metrics").body()).contains("rattan_build_info");
        assertThat(send(admin, "GET", "/v1/keys/" + KEY).statusCode()).as("no key API on the admin port")
                .isEqualTo(404);
    }

    @Test
    void withoutAnAdminPortTheHttpGatewayServesEverythingAndAListCanKeepSome() throws Exception {
        node = RattanNode.start(NodeOptions.singleNode(dir));
        assertThat(node.adminAddress()).isNull();
        for (String path : List.of("/metrics", "/node", "/admin/records")) {
            assertThat(send(node.httpAddress(), "GET", path).statusCode()).as(path).isEqualTo(200);
        }

        HttpSurfaces metricsOnly = HttpSurfaces.ofOperatorList(List.of("Metrics"));
        assertThat(metricsOnly).isEqualTo(new HttpSurfaces(true, true, false, false));
        assertThat(metricsOnly.operatorList()).containsExactly("metrics");
        assertThatThrownBy(() -> HttpSurfaces.ofOperatorList(List.of("metrics", "keys")))
                .hasMessageContaining("unknown endpoint 'keys'");
        assertThatThrownBy(() -> HttpSurfaces.ofOperatorList(List.of("none", "node")))
                .hasMessageContaining("'none' cannot stand beside");
        assertThatThrownBy(() -> new OperatorEndpoints(NodeOptions.LOOPBACK, 0, HttpSurfaces.ADMIN))
                .hasMessageContaining("serves the key API");
    }

    private HttpResponse<String> send(InetSocketAddress at, String method, String path) throws Exception {
        HttpRequest.BodyPublisher body = method.equals("POST") ? HttpRequest.BodyPublishers.ofString("v")
                : HttpRequest.BodyPublishers.noBody();
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.getPort() + path))
                .method(method, body).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
