package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes advertising addresses other than 127.0.0.1, on real sockets: a listener checks that a peer's connection comes
 * from the address its Hello claims, and for 127.0.0.3 the kernel picks 127.0.0.1 as the source, so outbound
 * connections must leave from the advertised address. Three nodes on 127.0.0.2–4 join, and a value put through one's
 * HTTP gateway is read through another's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BindAdvertiseNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() {
        nodes.forEach(RattanNode::halt);
    }

    @Test
    void nodesOnOtherLoopbackAddressesJoinAndServeEachOthersValues() throws Exception {
        Assumptions.assumeTrue(bindable("127.0.0.2"), "127.0.0.2 is not an address of this machine (not Linux?)");
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2);
        for (String host : List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")) {
            List<Address> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).contact().address());
            RattanNode node = RattanNode.start(NodeOptions.local(dir.resolve(host)).withHost(host).withConfig(config)
                    .withBootstrap(bootstrap));
            nodes.add(node);
            assertThat(node.contact().address().host()).isEqualTo(host);
        }
        for (RattanNode n : nodes) {
            await().atMost(WAIT).until(n::isJoined);
            await().atMost(WAIT).until(() -> n.status().leafSet().size() == 2);
        }

        String key = "b1".repeat(20);
        HttpResponse<String> put = send(HttpRequest.newBuilder(uri(nodes.get(0), key + "?ttl=600"))
                .POST(HttpRequest.BodyPublishers.ofString("across addresses")));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        HttpResponse<String> get = send(HttpRequest.newBuilder(uri(nodes.get(2), key)).GET());
        assertThat(get.statusCode()).as(get.body()).isEqualTo(200);
        assertThat(get.body()).contains("YWNyb3NzIGFkZHJlc3Nlcw");
    }

    private static boolean bindable(String ip) {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(ip, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static URI uri(RattanNode n, String keyAndQuery) {
        return URI.create("http://" + n.contact().address().host() + ":" + n.httpAddress().getPort() + "/v1/keys/"
                + keyAndQuery);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
