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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin listing's own answer deadline ({@link HttpGatewayHandler#LISTING_ANSWER_MILLIS}, 120 s): a listing the
 * node has not answered gets its 504 then, not at the request timeout that every other request gets; a listing
 * answered after the request timeout but before its deadline is served; and a request timeout longer than 120 s holds
 * for the listing too. Time is Netty's embedded loop's, frozen and moved on by the test, so the 120 s cost nothing
 * and no assertion depends on how fast the machine is.
 */
class ListingDeadlineTest {

    private static final String KEY = "0123456789abcdef0123456789abcdef01234567";
    /** The handler's deadline for every other request (a node's request timeout plus slack). */
    private static final long ANSWER_MILLIS = 1_000;

    private final FakeBackend backend = new FakeBackend(NodeConfig.defaults());
    private EmbeddedChannel channel;

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        backend.close();
    }

    @Test
    void aListingTheNodeNeverAnswersIs504AtTheListingDeadlineNotTheRequestTimeout() {
        open(ANSWER_MILLIS);
        send("/admin/records");
        assertAnswered504At(HttpGatewayHandler.LISTING_ANSWER_MILLIS);
    }

    @Test
    void anyOtherRequestTheNodeNeverAnswersIs504AtTheRequestTimeout() {
        backend.hang = true;
        open(ANSWER_MILLIS);
        send("/v1/keys/" + KEY);
        assertAnswered504At(ANSWER_MILLIS);
    }

    @Test
    void aRequestTimeoutLongerThanTheListingDeadlineHoldsForTheListingToo() {
        long longer = HttpGatewayHandler.LISTING_ANSWER_MILLIS + 60_000;
        open(longer);
        send("/admin/records");
        assertAnswered504At(longer);
    }

    @Test
    void aListingAnsweredAfterTheRequestTimeoutButBeforeItsDeadlineIsServed() {
        open(ANSWER_MILLIS);
        send("/admin/records");

        advanceMillis(10 * ANSWER_MILLIS);
        backend.listing.complete(List.of());
        channel.runPendingTasks();

        FullHttpResponse answer = channel.readOutbound();
        assertThat(answer.status().code()).isEqualTo(200);
        assertThat(body(answer)).contains("\"count\":0");
        answer.release();
    }

    private void open(long answerMillis) {
        ApiRouter router = new ApiRouter(backend, ClientGuard.none(), HttpSurfaces.ALL, null);
        HttpGatewayHandler handler = new HttpGatewayHandler(router, answerMillis, ClientGuard.none(),
                TransportListener.NONE, null);
        // The listing answers callers on the node's own host only: the channel's peer is loopback.
        channel = new EmbeddedChannel(handler) {
            @Override
            protected SocketAddress remoteAddress0() {
                return new InetSocketAddress("127.0.0.1", 40_000);
            }
        };
        channel.freezeTime();
    }

    private void send(String uri) {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri));
    }

    /** Nothing is answered a millisecond before {@code millis} from the request; a 504 naming them is, at them. */
    private void assertAnswered504At(long millis) {
        advanceMillis(millis - 1);
        Object early = channel.readOutbound();
        assertThat(early).as("an answer before %d ms", millis).isNull();

        advanceMillis(1);
        FullHttpResponse answer = channel.readOutbound();
        assertThat(answer).as("the answer at %d ms", millis).isNotNull();
        assertThat(answer.status().code()).isEqualTo(504);
        assertThat(body(answer)).contains("within " + millis + " ms");
        answer.release();
    }

    /** Moves the loop's clock on and runs what became due, and what that posted. */
    private void advanceMillis(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    private static String body(FullHttpResponse response) {
        return response.content().toString(StandardCharsets.UTF_8);
    }
}
