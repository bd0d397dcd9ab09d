package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client's one-hop gets on a real cluster (loopback sockets, RocksDB): 8 nodes with a leaf set of 2 per
 * side, so that a get routed from the client's one configured gateway takes hops. Once the client's image of the
 * ring has learned the keys' replicas, its gets go straight to a replica's own gateway, which answers it: only
 * replicas of the key serve it, and a node forwards a get only the first time the client sends it a key beyond its
 * arc (counted by the nodes' meters, not by what the client reports). A replica halted mid-way is routed around, and
 * the image converges again without it.
 *
 * <p>Two per side is also what makes convergence hard: the replica at the edge of a key's replica set does not see
 * past the key and forwards gets for it, though the answering node names it as a holder. Before the image learned
 * where each node answers (core's {@code AnswerArcs}), such keys kept being forwarded whenever that replica was
 * measured fastest, or alternated between one forward and none as the delays reordered the replicas.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OneHopClientClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int NODES = 8;
    private static final int REPLICAS = 3;
    private static final int KEYS = 16;
    /** Rounds over every key after the image converged. */
    private static final int MEASURED_ROUNDS = 3;
    /** One copy: each get is served by exactly one gateway, so that the meters say which. */
    private static final GetOptions ONE_HOP = GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true);
    /** The recommended one-hop mode: hedged to the next replica when the first is late. */
    private static final GetOptions ONE_HOP_HEDGED = GetOptions.defaults().withOneHop(true);

    @TempDir
    static Path dir;
    static LocalCluster cluster;
    static List<Id> keys = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        cluster = LocalCluster.start(NODES, dir, NodeConfig.defaults().withReplicas(REPLICAS, 2).withLeafSetHalf(2));
        for (int i = 0; i < KEYS; i++) {
            Id key = Id.ofName("one-hop-" + i);
            // Puts right after a start may still be refused (UNAVAILABLE: issue 15's "every put accepted", proven by
            // StartsTest); this test is about gets, so it retries.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> cluster.node(0)
                    .request(new ClientPut(key, value(key), 600, Bytes.EMPTY)).join() instanceof PutReply p
                    && p.status() == Status.OK);
            keys.add(key);
        }
        // Acknowledged at W = 2: wait for every replica's copy, so that whichever replica answers has the value.
        await().atMost(WAIT).until(() -> keys.stream().allMatch(k -> holders(k).size() >= REPLICAS));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * One copy per get throughout, so that the gateways' meters between a get's start and its answer count that get
     * alone: a hedge copy of an earlier get could be served by a stalled node at any later moment.
     *
     * <p>After the first round without a forward, {@link #MEASURED_ROUNDS} more rounds: every get is served by one
     * gateway, a replica of the key. The image learns where a node declines from the node's first forward, so a node
     * the client had never yet sent a key beyond its arc may forward once, when the measured delays reorder the
     * replicas; but a node never forwards the same key twice. (The first version of this test asserted no forward at
     * all after the first clean round: CI failed it once in about five runs on a loaded machine, each time on such a
     * first forward.)
     */
    @Test
    @Order(1)
    void onceTheImageConvergedEveryGetIsServedByAReplicaAndNoNodeDeclinesAKeyTwice() {
        try (RattanClient client = client()) {
            double before = getForwards();
            for (Id key : keys) {
                assertValue(client.getSync(key, GetOptions.defaults().withHedge(false)), key);
            }
            assertThat(getForwards() - before).as("routing is real: gets through one gateway forward").isPositive();

            awaitConvergence(client, ONE_HOP);

            Map<Id, List<RattanNode>> declined = new HashMap<>();
            int forwarded = 0;
            for (int round = 0; round < MEASURED_ROUNDS; round++) {
                for (Id key : keys) {
                    List<Double> served = gatewayGetsServed();
                    List<Double> forwards = getForwardsByNode();
                    assertValue(client.getSync(key, ONE_HOP), key);
                    List<RattanNode> servers = risen(served, gatewayGetsServed());
                    assertThat(servers).as("the one gateway that served " + key).hasSize(1);
                    assertThat(holders(key)).as("a replica of " + key + " served it").contains(servers.get(0));
                    for (RattanNode n : risen(forwards, getForwardsByNode())) {
                        forwarded++;
                        List<RattanNode> decliners = declined.computeIfAbsent(key, k -> new ArrayList<>());
                        assertThat(decliners).as("the image learned that node %s declines %s: it forwarded it again",
                                n.contact().id().shortHex(), key.shortHex()).doesNotContain(n);
                        decliners.add(n);
                    }
                }
            }
            System.out.printf("one-hop gets after convergence: %d gets, %d forwarded (a node's first decline)%n",
                    MEASURED_ROUNDS * keys.size(), forwarded);
        }
    }

    @Test
    @Order(2)
    void aReplicaThatStopsAnsweringIsRoutedAroundAndTheImageConvergesWithoutIt() {
        try (RattanClient client = client()) {
            awaitConvergence(client, ONE_HOP_HEDGED);
            // The node (not the configured gateway) that is a replica of the most keys.
            RattanNode victim = cluster.nodes().subList(1, NODES).stream()
                    .max(Comparator.comparingLong(n -> keys.stream().filter(k -> holders(k).contains(n)).count()))
                    .orElseThrow();
            int index = cluster.nodes().indexOf(victim);
            assertThat(keys.stream().filter(k -> holders(k).contains(victim)).count()).isPositive();

            cluster.halt(index);

            for (int round = 0; round < 3; round++) {
                for (Id key : keys) {
                    assertValue(client.getSync(key, ONE_HOP_HEDGED), key);
                }
            }
            assertThat(victim.framesSentAfterHalt()).as("a halt sends nothing").isZero();
            awaitConvergence(client, ONE_HOP_HEDGED);
        }
    }

    /**
     * Waits until a round of gets over every key, one-hop as {@code options} say, makes no node forward a get. A
     * failure names the keys the last round forwarded, with their holders.
     */
    private static void awaitConvergence(RattanClient client, GetOptions options) {
        // A round with a failed get (a halted node not yet declared dead) is a round that has not converged.
        await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .untilAsserted(() -> assertThat(forwardedInARound(client, options))
                        .as("keys forwarded in a round of one-hop gets").isEmpty());
    }

    /** Gets every key once; the keys whose get some node forwarded, with the forwards and the key's holders. */
    private static Map<String, String> forwardedInARound(RattanClient client, GetOptions options) {
        Map<String, String> forwarded = new TreeMap<>();
        for (Id key : keys) {
            double before = getForwards();
            assertValue(client.getSync(key, options), key);
            double forwards = getForwards() - before;
            if (forwards > 0) {
                forwarded.put(key.shortHex(), forwards + " forwards, holders "
                        + holders(key).stream().map(n -> n.contact().id().shortHex()).toList());
            }
        }
        return forwarded;
    }

    private static RattanClient client() {
        RattanNode gateway = cluster.node(0);
        return RattanClient.builder()
                .gateway("127.0.0.1:" + gateway.gatewayAddress().getPort())
                // An attempt retried after its timeout could be served late, like a hedge copy: make it unlikely.
                .attemptTimeout(Duration.ofSeconds(20))
                .totalTimeout(Duration.ofSeconds(60))
                .build();
    }

    /** {@code GET_REQUEST}s sent by every live node: a get's forwards, first hops from a gateway included. */
    private static double getForwards() {
        double sum = 0;
        for (RattanNode n : cluster.liveNodes()) {
            sum += getForwards(n);
        }
        return sum;
    }

    private static double getForwards(RattanNode n) {
        Counter c = n.meterRegistry().find("rattan.messages.sent").tag("type", "get_request").counter();
        return c == null ? 0 : c.count();
    }

    /** {@code GET_REQUEST}s each node (by index) has sent. */
    private static List<Double> getForwardsByNode() {
        List<Double> sent = new ArrayList<>();
        for (RattanNode n : cluster.nodes()) {
            sent.add(getForwards(n));
        }
        return sent;
    }

    /** The nodes (by index) whose count went up from {@code before} to {@code after}. */
    private static List<RattanNode> risen(List<Double> before, List<Double> after) {
        List<RattanNode> risen = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            if (after.get(i) > before.get(i)) {
                risen.add(cluster.node(i));
            }
        }
        return risen;
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

    /** The live nodes whose store holds the key's value. */
    private static List<RattanNode> holders(Id key) {
        return cluster.liveNodes().stream()
                .filter(n -> n.readStore(key, value(key).sha256()).join().isPresent())
                .toList();
    }

    private static Bytes value(Id key) {
        return Bytes.utf8("value of " + key.toHex());
    }

    private static void assertValue(GetResult r, Id key) {
        assertThat(r.values()).as(key.toHex()).extracting(GetResult.Value::value).containsExactly(value(key));
    }
}
