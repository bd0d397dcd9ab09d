package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.LeafExchangeReply;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.StoreAck;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, item 1, gets, on real sockets: a liar in a gateway's view answers every get it is sent OK with no value,
 * at once (the `fake-empty` attack), which no gateway can tell from the truth. A get raced through several gateways
 * ({@code ?gateways=3}) used to take the first good answer, so the liar's fast empty answer won whenever one copy went
 * through it; now an empty answer ends a race only once every copy has answered, and the copy that reaches the key's
 * honest root shows the value. (A get through one path that meets the liar is still answered empty:
 * docs/security.md.)
 */
class FakeEmptyTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int GETS = 30;
    // Default timeouts: a hop to the honest root that timed out on a busy machine could re-route through the liar.
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    @TempDir
    Path dir;

    @Test
    void aRacedGetFindsTheValueThoughOneOfItsCopiesMetALiarThatAnsweredEmpty() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (LocalCluster cluster = LocalCluster.start(3, dir, CONFIG);
             RawPeer liar = new RawPeer("fake-empty");
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort())).build()) {
            RattanNode gateway = cluster.node(0);
            liar.dialAndProve(gateway.contact().address().port(), true);
            AtomicInteger emptyAnswers = answerEveryGetEmpty(liar);
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                liar.send(new Envelope(liar.contact, 1, new JoinInfo(List.of(liar.contact), false)));
                liar.send(new Envelope(liar.contact, 2, new Ping()));
                return gateway.status().leafSet().contains(liar.contact);
            });
            // A key whose root is an honest node, which holds the value.
            Id key = cluster.node(1).contact().id();
            byte[] value = "found past the liar".getBytes(StandardCharsets.UTF_8);
            client.putSync(key, value, Duration.ofMinutes(10));

            String expected = Base64.getEncoder().encodeToString(value);
            URI uri = URI.create("http://127.0.0.1:" + gateway.httpAddress().getPort() + "/v1/keys/" + key.toHex()
                    + "?gateways=3");
            for (int i = 0; i < GETS; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(WAIT).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode values = new ObjectMapper().readTree(r.body()).get("values");
                assertThat(values).as("get %d: %s", i, r.body()).hasSize(1);
                assertThat(values.get(0).get("value").asText()).isEqualTo(expected);
            }
            assertThat(emptyAnswers.get()).as("gets the liar answered empty, of %d races of 3 copies", GETS)
                    .isPositive();
        }
    }

    /**
     * Answers the node's frames as a member that holds nothing: pongs, an empty leaf set, copies taken and not stored,
     * and every get it is routed answered OK with no value, at once, in the root's place. Counts those gets.
     */
    private static AtomicInteger answerEveryGetEmpty(RawPeer liar) {
        AtomicInteger gets = new AtomicInteger();
        Thread t = new Thread(() -> {
            try {
                liar.fromNode.setSoTimeout(0);
                while (true) {
                    Envelope e = TestMessages.readFrame(liar.fromNode);
                    switch (e.body().type()) {
                        case PING -> liar.send(reply(liar, e.requestId(), new Pong(List.of())));
                        case LEAF_EXCHANGE -> liar.send(reply(liar, e.requestId(), new LeafExchangeReply(List.of())));
                        case STORE_REPLICAS -> liar.send(reply(liar, e.requestId(),
                                new StoreAck(((StoreReplicas) e.body()).records().size())));
                        case GET_REQUEST -> {
                            GetRequest g = (GetRequest) e.body();
                            gets.incrementAndGet();
                            liar.send(reply(liar, e.requestId(), new HopAck()));
                            liar.send(reply(liar, g.originRequestId(), new GetReply(Status.OK, List.of(),
                                    Bytes.EMPTY, g.hops() + 1, "", g.cost(), List.of(), 1)));
                        }
                        default -> { }
                    }
                }
            } catch (IOException | RuntimeException closed) {
                // the liar or the node closed the connection
            }
        }, "fake-empty");
        t.setDaemon(true);
        t.start();
        return gets;
    }

    private static Envelope reply(RawPeer liar, long requestId, Message body) {
        return new Envelope(liar.contact, requestId, body);
    }
}
