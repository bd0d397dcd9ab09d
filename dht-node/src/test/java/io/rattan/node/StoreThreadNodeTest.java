package io.rattan.node;

import static io.rattan.node.netty.Handshakes.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MessageType;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.transport.TestProofs;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Store work runs off the node's event loop (issue 17), on a real node: real sockets, real RocksDB. With the store's
 * thread blocked on a latch (a write stall, a scan of millions of records), puts wait, and the node still answers a
 * peer's ping over its peer port and serves {@code /ready}, {@code /health} and {@code /metrics}; once the latch opens,
 * the puts that waited complete and are served.
 */
class StoreThreadNodeTest extends HookedSingleNode {

    private static final Duration PUT_WAIT = Duration.ofMinutes(3);
    private static final int PUTS = 3;

    @Test
    void withItsStoreLatchedTheNodeAnswersPingsAndEndpointsAndThePutsCompleteOnRelease() throws Exception {
        LatchedStore[] latch = new LatchedStore[1];
        // A put's gateway waits long enough for the latch: a put that timed out there (504) would prove nothing.
        RattanNode node = start(PUT_WAIT.toMillis(), s -> latch[0] = new LatchedStore(s));
        try {
            await().atMost(WAIT).until(() -> node.status().ready());
            latch[0].close();
            // Values under the node's own id: whoever else enters its leaf set, this node is their root (k = 1).
            String key = "/v1/keys/" + node.contact().id().toHex();
            List<CompletableFuture<HttpResponse<String>>> puts = new ArrayList<>();
            for (int i = 0; i < PUTS; i++) {
                puts.add(http.sendAsync(request(node, key).timeout(PUT_WAIT)
                        .POST(HttpRequest.BodyPublishers.ofString("value " + i)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            // The first put's own write holds the store's thread; the others queue behind it.
            await().atMost(WAIT).until(() -> latch[0].waiting() == 1);

            assertThat(get(node, "/ready").statusCode()).as("/ready while the store is latched").isEqualTo(200);
            assertThat(get(node, "/health").statusCode()).isEqualTo(200);
            // A peer's ping over the peer port, after the handshake, is answered by the node's loop.
            NodeKey peerKey = TestMessages.key("store-thread-peer");
            try (RawPeer peer = new RawPeer(peerKey.id(), TestProofs.prover(peerKey))
                    .dialAndProve(node.contact().address().port(), true)) {
                for (long id = 1; id <= 3; id++) {
                    peer.send(new Envelope(peer.contact, id, new Ping()));
                    assertThat(awaitPong(peer, id).sender().id()).isEqualTo(node.contact().id());
                }
            }
            HttpResponse<String> metrics = get(node, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("rattan_store_queue_tasks").contains("rattan_store_busy_total")
                    .contains("rattan_eventloop_lag_seconds_max");
            assertThat(latch[0].waiting()).as("the store's thread is still latched").isEqualTo(1);
            assertThat(puts).as("no put completes while its write waits").noneMatch(CompletableFuture::isDone);

            latch[0].open();
            for (int i = 0; i < PUTS; i++) {
                HttpResponse<String> put = puts.get(i).get(PUT_WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
            }
            String values = get(node, key).body();
            for (int i = 0; i < PUTS; i++) {
                assertThat(values).contains(Base64.getEncoder().encodeToString(
                        ("value " + i).getBytes(StandardCharsets.UTF_8)));
            }
            assertThat(node.offLoopStore().refused()).as("store tasks refused (queue full)").isZero();
        } finally {
            latch[0].open();
            // A halt: the test peer is in the node's leaf set now, and a graceful leave would wait for it.
            node.halt();
        }
    }

    private static Envelope awaitPong(RawPeer peer, long id) throws java.io.IOException {
        while (true) {
            Envelope e = expect(peer.fromNode, MessageType.PONG);
            if (e.requestId() == id) {
                return e;
            }
        }
    }

    private HttpResponse<String> get(RattanNode node, String path) throws Exception {
        return http.send(request(node, path).timeout(WAIT).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
