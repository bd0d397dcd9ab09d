package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
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
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, item 1, gets, on real sockets: four nodes and a liar in a gateway's view that answers every get it is
 * sent, at once. A get raced through several gateways ({@code ?gateways=5}: each of the gateway's four neighbours
 * starts a copy) used to take the first good answer, so the liar's fast answer won whenever it came first. Two
 * defences stand between it and the client: an empty answer ends a race only once every copy has answered (or after
 * a grace of twice the hedge threshold; {@code GetRaceTest} tests that on its own), and a gateway takes an answer only
 * from a node its view may count among the key's replicas, an empty one only from the key's root
 * ({@code GetAnswerCheck}). The liar here is no root of the key, so both stand in the first test, and the second alone
 * against a value nobody put, raced or asked by an iterative gateway. (A liar that is the key's root, or one of its
 * replicas with a value, still wins: docs/security.md.)
 */
class FakeEmptyTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    // Within the gateway's hedge threshold's warm-up (its cap, 500 ms): the copies have a second to find the value.
    private static final int GETS = 8;
    // This node and its four neighbours, so that every race sends a copy through the liar.
    private static final int COPIES = 5;
    // Default timeouts: a hop to the honest root that timed out on a busy machine could re-route through the liar.
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(2);
    private static final String RACED = "gateways=" + COPIES;
    private static final List<ValueEntry> FORGED = List.of(new ValueEntry(
            Bytes.of("nobody put this".getBytes(StandardCharsets.UTF_8)), 600_000));

    @TempDir
    Path dir;

    @Test
    void aRacedGetFindsTheValueThoughOneOfItsCopiesMetALiarThatAnsweredEmpty() throws Exception {
        getsPastALiar("fake-empty", List.of(), FakeEmptyTest::keyOfOthers, RACED);
    }

    /**
     * A liar that is no replica of the key (two honest nodes are closer to it) answers every get it is sent, at once,
     * with a value nobody put. A raced get took the first answer with a value, so the liar's copy won whenever it came
     * first; now the gateway sets an answer aside when its view holds k nodes closer to the key than the answer's
     * sender, and asks the closest of them instead ({@code GetAnswerCheck}).
     */
    @Test
    void aRacedGetIsNotWonByAValueFromANodeThatIsNoReplicaOfTheKey() throws Exception {
        assertThat(getsPastALiar("forged-value", FORGED, FakeEmptyTest::keyFarFromLiar, RACED))
                .as("answers the gateway set aside").isPositive();
    }

    /**
     * The same liar asked by an iterative gateway, which asks its four nodes nearest the key at once (the liar among
     * them) and took the first answer with values, the liar's, whenever it came first; now the gateway sets it aside
     * and takes a replica's. Whether the liar's answer comes before the replicas' is the machine's race (on a loaded
     * one it came last in all 8 gets once, and nothing was set aside), so only the answers are asserted here;
     * {@code IterativeGatewayTest} puts the liar first in virtual time.
     */
    @Test
    void anIterativeGetIsNotAnsweredByAValueFromANodeThatIsNoReplicaOfTheKey() throws Exception {
        getsPastALiar("forged-value-iterative", FORGED, FakeEmptyTest::keyAskedOfTheLiar, "routing=iterative&p=4");
    }

    /**
     * Four nodes and a liar in the first node's view that answers every get it is sent with {@code lie}; a value put
     * under the key {@code keys} picks (from the honest nodes' ids, the gateway's, the liar's), then {@link #GETS}
     * gets with the options {@code query} (raced through {@link #COPIES} gateways, or iterative), each of which must
     * find exactly that value. Returns how many answers the gateway set aside.
     */
    private double getsPastALiar(String name, List<ValueEntry> lie, KeyChoice keys, String query) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG);
             RawPeer liar = new RawPeer(name);
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort())).build()) {
            RattanNode gateway = cluster.node(0);
            liar.dialAndProve(gateway.contact().address().port(), true);
            AtomicInteger lies = answerEveryGet(liar, name, lie);
            LyingMember.joinTheView(liar, gateway);
            Id key = keys.choose(List.of(cluster.node(1).contact().id(), cluster.node(2).contact().id(),
                    cluster.node(3).contact().id()), gateway.contact().id(), liar.contact.id());
            byte[] value = "found past the liar".getBytes(StandardCharsets.UTF_8);
            client.putSync(key, value, Duration.ofMinutes(10));

            String expected = Base64.getEncoder().encodeToString(value);
            URI uri = URI.create("http://127.0.0.1:" + gateway.httpAddress().getPort() + "/v1/keys/" + key.toHex()
                    + "?" + query);
            for (int i = 0; i < GETS; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(WAIT).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode values = new ObjectMapper().readTree(r.body()).get("values");
                assertThat(values).as("get %d: %s", i, r.body()).hasSize(1);
                assertThat(values.get(0).get("value").asText()).isEqualTo(expected);
            }
            assertThat(lies.get()).as("gets the liar answered (%s), of %d gets with %s", name, GETS, query)
                    .isPositive();
            return setAside(http, gateway);
        }
    }

    /** The gateway's count of get answers it set aside ({@code rattan_get_answers_set_aside_total}). */
    private static double setAside(HttpClient http, RattanNode gateway) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateway.httpAddress().getPort() + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("^rattan_get_answers_set_aside_total (\\S+)$", Pattern.MULTILINE).matcher(metrics);
        assertThat(m.find()).as("rattan_get_answers_set_aside_total is exported").isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** Picks a key from the honest nodes' ids (other than the gateway's), the gateway's and the liar's. */
    @FunctionalInterface
    private interface KeyChoice {
        Id choose(List<Id> others, Id gateway, Id liar);
    }

    /**
     * A key of whose k = 2 replicas neither the gateway nor the liar is one: a random one, drawn until it is, and one
     * to which every honest node is closer than the liar where the ids allow (with one of them suspected a moment, two
     * still outrank the liar).
     */
    private static Id keyFarFromLiar(List<Id> others, Id gateway, Id liar) {
        return keyFarFromLiar(others, gateway, liar, false);
    }

    /**
     * As {@link #keyFarFromLiar(List, Id, Id)}, and the liar is nearer the key than the gateway, so that an iterative
     * gateway asks it among its first candidates (the nodes it knows nearer the key than itself).
     */
    private static Id keyAskedOfTheLiar(List<Id> others, Id gateway, Id liar) {
        return keyFarFromLiar(others, gateway, liar, true);
    }

    private static Id keyFarFromLiar(List<Id> others, Id gateway, Id liar, boolean liarNearerThanGateway) {
        Random random = new Random(39);
        Id fallback = null;
        for (int i = 0; i < 100_000; i++) {
            Id key = Id.random(random);
            long closerThanGateway = others.stream().filter(h -> h.isCloserTo(key, gateway)).count();
            long closerThanLiar = others.stream().filter(h -> h.isCloserTo(key, liar)).count();
            if (liarNearerThanGateway && !liar.isCloserTo(key, gateway)) {
                continue;
            }
            if (closerThanGateway >= 2 && closerThanLiar == others.size()) {
                return key;
            }
            if (fallback == null && closerThanGateway >= 2 && closerThanLiar >= 2) {
                fallback = key;
            }
        }
        if (fallback == null && liarNearerThanGateway) {
            // About one draw of ids in 750: the honest nodes sit far from the liar and the gateway near it.
            Assumptions.abort("no key of which the liar is nearer than the gateway and no replica, for these ids");
        }
        if (fallback == null) {
            throw new IllegalStateException("no key with two honest nodes closer than the gateway and the liar");
        }
        return fallback;
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
     * whose second replica is the liar is still acknowledged), and every get it is routed or asked iteratively
     * answered OK with {@code values} (none: `fake-empty`), at once, in the root's place. Counts those gets.
     */
    private static AtomicInteger answerEveryGet(RawPeer liar, String name, List<ValueEntry> values) {
        AtomicInteger gets = new AtomicInteger();
        LyingMember.answer(liar, name, e -> {
            if (e.body() instanceof GetRequest g) {
                gets.incrementAndGet();
                liar.send(LyingMember.reply(liar, e.requestId(), new HopAck()));
                liar.send(LyingMember.reply(liar, g.originRequestId(), new GetReply(Status.OK, values,
                        Bytes.EMPTY, g.hops() + 1, "", g.cost(), List.of(), 1)));
            } else if (e.body() instanceof IterativeGet) {
                gets.incrementAndGet();
                liar.send(LyingMember.reply(liar, e.requestId(), new IterativeGetReply(Status.OK, true, values,
                        Bytes.EMPTY, List.of())));
            }
        });
        return gets;
    }
}
