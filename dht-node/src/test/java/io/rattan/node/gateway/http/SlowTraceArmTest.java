package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.netty.TransportListener;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /admin/slow-trace?start=EPOCH_MS}: handed to the backend with its moment, answered to the node's own
 * host only, a 400 without one numeric start, a 405 for another method, and no error for a node with no period.
 */
class SlowTraceArmTest {

    private final FakeBackend backend = new FakeBackend(NodeConfig.defaults());
    private EmbeddedChannel channel;

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        backend.close();
    }

    @Test
    void theMomentGoesToTheNode() {
        assertThat(answer("127.0.0.1", HttpMethod.POST, "/admin/slow-trace?start=1796215251882"))
                .startsWith("200 ").contains("\"armed\":true").contains("1796215251882");
        assertThat(backend.armedAt).isEqualTo(1796215251882L);
        backend.replaysTrace = false;
        assertThat(answer("127.0.0.1", HttpMethod.POST, "/admin/slow-trace?start=7")).startsWith("200 ")
                .contains("\"armed\":false");
    }

    @Test
    void strangersBadMomentsAndOtherMethodsAreRefused() {
        assertThat(answer("10.1.2.3", HttpMethod.POST, "/admin/slow-trace?start=5")).startsWith("403 ");
        assertThat(answer("127.0.0.1", HttpMethod.POST, "/admin/slow-trace")).startsWith("400 ");
        assertThat(answer("127.0.0.1", HttpMethod.POST, "/admin/slow-trace?start=soon")).startsWith("400 ");
        assertThat(answer("127.0.0.1", HttpMethod.GET, "/admin/slow-trace?start=5")).startsWith("405 ");
        assertThat(backend.armedAt).isEqualTo(-1);
    }

    /** The status code and body of one request from {@code ip}. */
    private String answer(String ip, HttpMethod method, String uri) {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        ApiRouter router = new ApiRouter(backend, ClientGuard.none(), HttpSurfaces.ALL, null);
        channel = new EmbeddedChannel(new HttpGatewayHandler(router, 1_000, ClientGuard.none(),
                TransportListener.NONE, null)) {
            @Override
            protected SocketAddress remoteAddress0() {
                return new InetSocketAddress(ip, 40_000);
            }
        };
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri));
        channel.runPendingTasks();
        FullHttpResponse r = channel.readOutbound();
        try {
            return r.status().code() + " " + r.content().toString(StandardCharsets.UTF_8);
        } finally {
            r.release();
        }
    }
}
