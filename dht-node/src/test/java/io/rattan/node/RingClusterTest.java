package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ring for clients (issue 37) on a real cluster (loopback sockets, RocksDB): 8 nodes with a leaf set of 2 per
 * side, so that routed gets take hops. A new client loads the ring from its gateway at start, and its first one-hop
 * gets then go straight to a replica that answers them: counted from the replies' hops and from the nodes' own
 * meters (the gateway that served each get, and the get requests the nodes sent on). A client built without the
 * ring routes its first get. And {@code GET /v1/ring} pages through the same nodes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RingClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int NODES = 8;
    private static final int REPLICAS = 3;
    private static final int KEYS = 100;
    private static final int LEAF_SET_HALF = 2;
    /**
     * The first gets that may take a hop by design: a replica at the edge of a key's replica set does not see past the
     * key with two leaf-set members a side and forwards it, and the client learns that node's arc from such forwards
     * ({@code AnswerArcs}), a few per node. How many depends on the node ids drawn and on which replica measured
     * fastest: 0 to 7 seen; a client that ignored its ring would forward most of the 100.
     */
    private static final int EDGE_FORWARDS = 15;
    /** One copy, not hedged: each get is served by exactly one gateway, so that the meters say which. */
    private static final GetOptions ONE_HOP = GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static LocalCluster cluster;
    static final List<Id> keys = new ArrayList<>();
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws IOException {
        cluster = LocalCluster.start(NODES, dir, NodeConfig.defaults().withReplicas(REPLICAS, 2)
                .withLeafSetHalf(LEAF_SET_HALF));
        try (RattanClient writer = client(false, null)) {
            for (int i = 0; i < KEYS; i++) {
                Id key = Id.ofName("ring-" + i);
                // A put right after the start may still be refused (UNAVAILABLE); this test is about gets.
                await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> writer.putSync(key, value(key).toByteArray(), Duration.ofMinutes(10))
                                .replicas() > 0);
                keys.add(key);
            }
        }
        // Acknowledged at W = 2: wait for every replica's copy, so that whichever replica answers has the value.
        await().atMost(WAIT).until(() -> keys.stream().allMatch(k -> holders(k).size() >= REPLICAS));
        // The gateway's view of the ring is what a client loads: wait until it names every node. And until every node
        // is ready with a full leaf set: a node whose leaf set is still filling forwards gets it will answer later.
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> walk(2).size() == NODES
                && cluster.nodes().stream().map(RattanNode::status)
                .allMatch(s -> s.ready() && s.leafSet().size() == 2 * LEAF_SET_HALF));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNewClientWithTheRingTakesOneHopFromItsFirstGets() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (RattanClient client = client(true, meters)) {
            await().atMost(WAIT).until(() -> ringLoads(meters) >= 1);
            assertThat(meters.get("rattan.client.ring.nodes").gauge().value()).isEqualTo(NODES);

            int zeroHops = 0;
            int servedWithoutForward = 0;
            for (Id key : keys) {
                List<Double> served = gatewayGetsServed();
                double forwardsBefore = getForwards();
                GetResult r = client.getSync(key, ONE_HOP);
                assertThat(r.values()).extracting(GetResult.Value::value).containsExactly(value(key));
                zeroHops += r.hops() == 0 ? 1 : 0;
                List<Integer> servers = risen(served, gatewayGetsServed());
                // The nodes' own count: one gateway served it, a replica of the key, and no node sent a get on.
                if (getForwards() == forwardsBefore && servers.size() == 1
                        && holders(key).contains(cluster.node(servers.get(0)))) {
                    servedWithoutForward++;
                }
            }
            System.out.printf("with the ring: %d of %d first gets answered with 0 hops, %d served by a replica "
                    + "without a forward (nodes' meters)%n", zeroHops, KEYS, servedWithoutForward);
            assertThat(zeroHops).as("first gets answered at the replica they were sent to")
                    .isGreaterThanOrEqualTo(KEYS - EDGE_FORWARDS);
            assertThat(servedWithoutForward).as("first gets served by a replica, no forward, by the nodes' meters")
                    .isGreaterThanOrEqualTo(KEYS - EDGE_FORWARDS);
        }
    }

    @Test
    void aNewClientWithoutTheRingRoutesItsFirstGet() {
        // A key the configured gateway does not hold: a get through it must be forwarded.
        Id key = keys.stream().filter(k -> !holders(k).contains(cluster.node(0))).findFirst().orElseThrow();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (RattanClient client = client(false, meters)) {
            double forwardsBefore = getForwards();
            GetResult first = client.getSync(key, ONE_HOP);
            assertThat(first.values()).extracting(GetResult.Value::value).containsExactly(value(key));
            assertThat(first.hops()).as("the first get of a client without the ring is routed").isPositive();
            assertThat(getForwards()).as("get requests the nodes sent on").isGreaterThan(forwardsBefore);
            assertThat(meters.find("rattan.client.ring.loads").meters()).as("no ring loaded").isEmpty();
            int zeroHops = 0;
            for (Id k : keys) {
                zeroHops += client.getSync(k, ONE_HOP).hops() == 0 ? 1 : 0;
            }
            System.out.printf("without the ring: %d of %d first gets answered with 0 hops (after the first)%n",
                    zeroHops, KEYS);
        }
    }

    @Test
    void theRingPagesOverHttpWalkEveryNodeOnceInIdOrder() throws Exception {
        List<String> ids = walk(2);
        Set<String> nodes = cluster.nodes().stream().map(n -> n.contact().id().toHex())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(ids).as("every node once, in id order").containsExactlyElementsOf(nodes);
        JsonNode whole = JSON.readTree(get("/v1/ring").body());
        assertThat(whole.get("placemark").isNull()).isTrue();
        assertThat(whole.get("replicas").asInt()).isEqualTo(REPLICAS);
        JsonNode first = whole.get("nodes").get(0);
        RattanNode node = cluster.nodes().stream().filter(n -> n.contact().id().toHex().equals(first.get("id")
                .asText())).findFirst().orElseThrow();
        assertThat(first.get("host").asText()).isEqualTo("127.0.0.1");
        assertThat(first.get("peerPort").asInt()).isEqualTo(node.contact().address().port());
        assertThat(first.get("gatewayPort").asInt()).isEqualTo(node.gatewayAddress().getPort());

        for (String bad : List.of("max=0", "max=257", "max=two", "placemark=zz", "placemark=abcd",
                "placemark=" + "g".repeat(40), "max=1&max=2")) {
            HttpResponse<String> r = get("/v1/ring?" + bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
        }
        assertThat(send("POST", "/v1/ring").statusCode()).isEqualTo(405);
    }

    /** The node ids {@code GET /v1/ring} names through node 0, page after page of {@code max}. */
    private static List<String> walk(int max) throws Exception {
        List<String> ids = new ArrayList<>();
        String mark = null;
        do {
            HttpResponse<String> r = get("/v1/ring?max=" + max + (mark == null ? "" : "&placemark=" + mark));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode page = JSON.readTree(r.body());
            assertThat(page.get("nodes").size()).isLessThanOrEqualTo(max);
            page.get("nodes").forEach(n -> ids.add(n.get("id").asText()));
            mark = page.get("placemark").isNull() ? null : page.get("placemark").asText();
        } while (mark != null);
        return ids;
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return send("GET", path);
    }

    private static HttpResponse<String> send(String method, String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + cluster.node(0).httpAddress().getPort() + path);
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static RattanClient client(boolean loadRing, SimpleMeterRegistry meters) {
        RattanClient.Builder b = RattanClient.builder()
                .gateway("127.0.0.1:" + cluster.node(0).gatewayAddress().getPort())
                // An attempt retried after its timeout could be served late: make it unlikely.
                .attemptTimeout(Duration.ofSeconds(20))
                .totalTimeout(Duration.ofSeconds(60))
                .loadRing(loadRing);
        return meters == null ? b.build() : b.meterRegistry(meters).build();
    }

    private static double ringLoads(SimpleMeterRegistry meters) {
        FunctionCounter c = meters.find("rattan.client.ring.loads").functionCounter();
        return c == null ? 0 : c.count();
    }

    /** {@code GET_REQUEST}s sent by every node: a get's forwards, first hops from a gateway included. */
    private static double getForwards() {
        double sum = 0;
        for (RattanNode n : cluster.nodes()) {
            Counter c = n.meterRegistry().find("rattan.messages.sent").tag("type", "get_request").counter();
            sum += c == null ? 0 : c.count();
        }
        return sum;
    }

    /** Gets each node (by index) has answered as a gateway. */
    private static List<Double> gatewayGetsServed() {
        List<Double> served = new ArrayList<>();
        for (RattanNode n : cluster.nodes()) {
            double sum = 0;
            for (Timer t : n.meterRegistry().find("rattan.gateway.requests").tag("op", "get").timers()) {
                sum += t.count();
            }
            served.add(sum);
        }
        return served;
    }

    /** The indexes of the nodes whose count went up from {@code before} to {@code after}. */
    private static List<Integer> risen(List<Double> before, List<Double> after) {
        List<Integer> risen = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            if (after.get(i) > before.get(i)) {
                risen.add(i);
            }
        }
        return risen;
    }

    /** The nodes whose store holds the key's value. */
    private static List<RattanNode> holders(Id key) {
        return cluster.nodes().stream()
                .filter(n -> n.readStore(key, value(key).sha256()).join().isPresent())
                .toList();
    }

    private static Bytes value(Id key) {
        return Bytes.utf8("value of " + key.toHex());
    }
}
