package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
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
 * Issue 39, item 1, gets, on real sockets: four nodes and a liar in a gateway's view that answers every get it is
 * sent OK with no value, at once (the `fake-empty` attack), which no gateway can tell from the truth. A get raced
 * through several gateways ({@code ?gateways=5}: each of the gateway's four neighbours starts a copy) used to take the
 * first good answer, so the liar's fast empty answer won whenever it came first; now an empty answer ends a race only
 * once every copy has answered (or after a grace of twice the hedge threshold), and a copy that reaches the key's
 * honest root shows the value. (A get through one path that meets the liar is still answered empty:
 * docs/security.md.)
 */
class FakeEmptyTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    // Within the gateway's hedge threshold's warm-up (its cap, 500 ms): the copies have a second to find the value.
    private static final int GETS = 8;
    // This node and its four neighbours, so that every race sends a copy through the liar.
    private static final int COPIES = 5;
    // Default timeouts: a hop to the honest root that timed out on a busy machine could re-route through the liar.
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(2);

    @TempDir
    Path dir;

    @Test
    void aRacedGetFindsTheValueThoughOneOfItsCopiesMetALiarThatAnsweredEmpty() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG);
             RawPeer liar = new RawPeer("fake-empty");
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort())).build()) {
            RattanNode gateway = cluster.node(0);
            liar.dialAndProve(gateway.contact().address().port(), true);
            AtomicInteger emptyAnswers = answerEveryGetEmpty(liar);
            LyingMember.joinTheView(liar, gateway);
            Id key = keyOfOthers(List.of(cluster.node(1).contact().id(), cluster.node(2).contact().id(),
                    cluster.node(3).contact().id()), gateway.contact().id(), liar.contact.id());
            byte[] value = "found past the liar".getBytes(StandardCharsets.UTF_8);
            client.putSync(key, value, Duration.ofMinutes(10));

            String expected = Base64.getEncoder().encodeToString(value);
            URI uri = URI.create("http://127.0.0.1:" + gateway.httpAddress().getPort() + "/v1/keys/" + key.toHex()
                    + "?gateways=" + COPIES);
            for (int i = 0; i < GETS; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(WAIT).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode values = new ObjectMapper().readTree(r.body()).get("values");
                assertThat(values).as("get %d: %s", i, r.body()).hasSize(1);
                assertThat(values.get(0).get("value").asText()).isEqualTo(expected);
            }
            assertThat(emptyAnswers.get()).as("gets the liar answered empty, of %d races of %d copies", GETS, COPIES)
                    .isPositive();
        }
    }

    /**
     * A key whose root is an honest node other than the gateway and of whose k = 2 replicas the gateway is not one, so
     * that the gateway's own copy is routed, never served from its own store, and the race is decided by the copies'
     * answers: an honest node's own id, whose nearest other node is not the gateway (the gateway is the nearest of
     * at most two nodes on the ring, and there are three to choose from).
     */
    private static Id keyOfOthers(List<Id> others, Id gateway, Id liar) {
        for (Id h : others) {
            Id nearest = gateway;
            for (Id c : List.of(others.get(0), others.get(1), others.get(2), liar)) {
                if (!c.equals(h) && c.isCloserTo(h, nearest)) {
                    nearest = c;
                }
            }
            if (!nearest.equals(gateway)) {
                return h;
            }
        }
        throw new IllegalStateException("the gateway is the nearest node to every other honest node");
    }

    /**
     * Answers the node's frames as a member that holds nothing ({@link LyingMember}; a copy acked, not stored: a put
     * whose second replica is the liar is still acknowledged), and every get it is routed answered OK with no value,
     * at once, in the root's place. Counts those gets.
     */
    private static AtomicInteger answerEveryGetEmpty(RawPeer liar) {
        AtomicInteger gets = new AtomicInteger();
        LyingMember.answer(liar, "fake-empty", e -> {
            if (e.body() instanceof GetRequest g) {
                gets.incrementAndGet();
                liar.send(LyingMember.reply(liar, e.requestId(), new HopAck()));
                liar.send(LyingMember.reply(liar, g.originRequestId(), new GetReply(Status.OK, List.of(),
                        Bytes.EMPTY, g.hops() + 1, "", g.cost(), List.of(), 1)));
            }
        });
        return gets;
    }
}
