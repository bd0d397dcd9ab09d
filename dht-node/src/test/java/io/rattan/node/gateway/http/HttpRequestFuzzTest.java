package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.netty.TransportListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Coverage-guided fuzzing of the HTTP gateway's request parsing (issue 18): any bytes on a connection, through the
 * HTTP codec, the bounded aggregator, the handler and the router (key, value hash, query and header parsing), never
 * throw past the pipeline; and {@link KeyParser} refuses what it cannot parse with an
 * {@code IllegalArgumentException} and nothing else. A normal build replays the committed corpus in
 * {@code src/test/resources/io/rattan/node/gateway/http/HttpRequestFuzzTestInputs/}.
 */
class HttpRequestFuzzTest {

    private static final ApiRouter ROUTER = new ApiRouter(new Synchronous(), ClientGuard.none(), HttpSurfaces.ALL, null);

    @FuzzTest(maxExecutions = 1_000_000)
    void httpRequests(byte[] bytes) {
        EmbeddedChannel channel = new EmbeddedChannel(new HttpServerCodec(), new BoundedAggregator(2048, 1024),
                new HttpGatewayHandler(ROUTER, 6_000, ClientGuard.none(), TransportListener.NONE, null));
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes));
            channel.runPendingTasks();
            channel.checkException();
        } finally {
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                ReferenceCountUtil.release(out);
            }
            channel.finishAndReleaseAll();
        }
    }

    @FuzzTest(maxExecutions = 1_000_000)
    void keys(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        try {
            assertThat(KeyParser.parseKey(PathSegments.decode(text))).isNotNull();
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        try {
            assertThat(KeyParser.parseValueHash(text).length()).isEqualTo(32);
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
    }

    /** Answers at once on the caller's thread, so that the embedded channel is only touched on the test's thread. */
    private static final class Synchronous implements GatewayBackend {
        @Override
        public CompletableFuture<Message> request(Message request) {
            Message reply;
            if (request instanceof ClientPut) {
                reply = new PutReply(Status.OK, 1, "");
            } else if (request instanceof ClientGet) {
                reply = new GetReply(Status.OK, List.of(), Bytes.EMPTY, 1, "");
            } else {
                reply = new RemoveReply(Status.NOT_FOUND, "");
            }
            return CompletableFuture.completedFuture(reply);
        }

        @Override
        public CompletableFuture<NodeStatus> status() {
            return CompletableFuture.completedFuture(new NodeStatus(FakeBackend.SELF, true, List.of(), List.of(),
                    List.of(), 0));
        }

        @Override
        public String scrapeMetrics() {
            return "";
        }

        @Override
        public NodeConfig config() {
            return NodeConfig.defaults();
        }
    }
}
