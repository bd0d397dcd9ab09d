package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.cli.RattanCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Get modes end to end on a real cluster (loopback sockets, RocksDB): the HTTP gateway's {@code routing}, {@code p},
 * {@code gateways} and {@code hedge}, the client's raced gets and the CLI's flags all return exactly the value put,
 * with a cost that adds up. The gets go through nodes that are not replicas of the key, so that they take hops.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GetModesClusterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int REPLICAS = 3;
    private static final String NAME = "get-modes";
    private static final Id KEY = Id.ofName(NAME);
    private static final Bytes VALUE = Bytes.utf8("exactly this value");

    @TempDir
    static Path dir;
    static LocalCluster cluster;
    static HttpClient http;
    /** The nodes farthest from the key first: none of the first {@code size − REPLICAS} is a replica. */
    static List<RattanNode> farthest;

    @BeforeAll
    static void start() throws IOException {
        cluster = LocalCluster.start(7, dir, NodeConfig.defaults().withLeafSetHalf(3).withReplicas(REPLICAS, 2));
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Message put = cluster.node(0).request(new ClientPut(KEY, VALUE, 600, Bytes.EMPTY)).join();
        assertThat(put).isInstanceOfSatisfying(PutReply.class, p -> assertThat(p.status()).isEqualTo(Status.OK));
        // Acknowledged at W = 2: wait for every replica's copy, so whichever replica answers has the value.
        await().atMost(WAIT).until(() -> cluster.nodes().stream()
                .filter(n -> n.readStore(KEY, VALUE.sha256()).join().isPresent()).count() >= REPLICAS);
        farthest = new ArrayList<>(cluster.nodes());
        farthest.sort(Comparator.comparing((RattanNode n) -> n.contact().id().distanceTo(KEY)).reversed());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ---- HTTP

    @Test
    void everyHttpModeReturnsExactlyTheValueWithItsCost() throws Exception {
        RattanNode gateway = farthest.get(0);
        for (String query : List.of("", "?routing=greedy&hedge=false", "?routing=delay-aware", "?gateways=3",
                "?hedge=true", "?routing=greedy&gateways=2&hedge=true")) {
            JsonNode body = getOk(gateway, query);
            assertValue(body, query);
            JsonNode cost = body.get("cost");
            int hops = cost.get("hops").asInt();
            int messages = cost.get("messages").asInt();
            // Recursive: each hop is a forward and its ack, then the final reply; timed-out forwards only add.
            assertThat(hops).as(query).isBetween(1, 8);
            assertThat(messages).as(query).isGreaterThanOrEqualTo(2 * hops + 1);
            assertThat(cost.get("bytes").asLong()).as(query)
                    .isGreaterThanOrEqualTo((long) messages * (Cost.HEADER_BYTES + 1));
        }
    }

    @Test
    void aGreedyGetReportsExactlyTheGetMessagesTheClusterSentForIt() throws Exception {
        RattanNode gateway = farthest.get(0);
        int checked = 0;
        for (int attempt = 0; attempt < 10 && checked < 3; attempt++) {
            // Losing copies of the other tests' raced gets may still be travelling: start from a quiet cluster.
            double sentBefore = quiescentGetMessagesSent();
            double reportedBefore = gatewayGetMessages(gateway);
            JsonNode body = getOk(gateway, "?routing=greedy&hedge=false");
            assertValue(body, "greedy");
            int hops = body.get("cost").get("hops").asInt();
            int messages = body.get("cost").get("messages").asInt();
            if (messages != 2 * hops + 1) {
                // A forward timed out (a pause of a loaded machine past the minimum RTO) and the get was re-routed;
                // that forward's late ack may come after the answer, where no get can count it. Ask again.
                continue;
            }
            // Otherwise a forward and its ack per hop, then the replica's reply. Every node counts what it sends,
            // each by its own counter, so the sum checks the count the get carried along. The cluster sent at least
            // that; more only if a straggler of an earlier get woke up meanwhile (that attempt proves nothing).
            double sent = quiescentGetMessagesSent() - sentBefore;
            assertThat(sent).isGreaterThanOrEqualTo(messages);
            assertThat(gatewayGetMessages(gateway) - reportedBefore).isEqualTo(messages);
            checked += sent == messages ? 1 : 0;
        }
        assertThat(checked).as("greedy gets that were not re-routed and alone in the cluster, of 10").isEqualTo(3);
    }

    /**
     * {@link #getMessagesSent()} once it has not changed for 1.5 s: longer than the 1 s first timeout toward a peer
     * not yet measured, after which a straggling copy of an earlier get could still send.
     */
    private static double quiescentGetMessagesSent() {
        double[] last = {-1};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(1_500)).until(() -> {
            double now = getMessagesSent();
            boolean still = now == last[0];
            last[0] = now;
            return still;
        });
        return last[0];
    }

    /** Get requests, hop acks and get replies sent by every node of the cluster (maintenance sends none). */
    private static double getMessagesSent() {
        double sum = 0;
        for (RattanNode n : cluster.nodes()) {
            for (String type : List.of("get_request", "hop_ack", "get_reply")) {
                Counter c = n.meterRegistry().find("rattan.messages.sent").tag("type", type).counter();
                sum += c == null ? 0 : c.count();
            }
        }
        return sum;
    }

    private static double gatewayGetMessages(RattanNode gateway) {
        DistributionSummary s = gateway.meterRegistry().find("rattan.gateway.get.messages").tag("routing", "greedy")
                .summary();
        return s == null ? 0 : s.totalAmount();
    }

    @Test
    void iterativeGetsOverHttpReturnExactlyTheValueWithItsCost() throws Exception {
        RattanNode gateway = farthest.get(0);
        for (String query : List.of("?routing=iterative&p=2", "?routing=iterative&p=3", "?routing=iterative",
                "?routing=iterative&p=1", "?routing=iterative&p=16&gateways=1&hedge=false")) {
            JsonNode body = getOk(gateway, query);
            assertValue(body, query);
            JsonNode cost = body.get("cost");
            int hops = cost.get("hops").asInt();
            int messages = cost.get("messages").asInt();
            // The gateway asked at least one node per level of the path and heard back from the one that answered.
            assertThat(hops).as(query).isBetween(1, 8);
            assertThat(messages).as(query).isGreaterThanOrEqualTo(2 * hops);
            assertThat(cost.get("bytes").asLong()).as(query)
                    .isGreaterThanOrEqualTo((long) messages * (Cost.HEADER_BYTES + 1));
        }
    }

    @Test
    void oneHopGetsOverHttpGoStraightToAReplicaOnceTheGatewayLearnedTheKey() throws Exception {
        RattanNode gateway = farthest.get(2);
        int later = 0;
        int oneHop = 0;
        for (int i = 0; i < 5; i++) {
            for (String query : List.of("?onehop=true&hedge=false", "?onehop=true&gateways=2")) {
                JsonNode body = getOk(gateway, query);
                assertValue(body, query);
                if (i > 0) {
                    later++;
                    oneHop += body.get("cost").get("hops").asInt() == 1 ? 1 : 0;
                }
            }
        }
        // Its image names the replicas after the first get: one forward, to a replica, which answers. (Most, not
        // all: on a loaded machine a hop's ack can miss its timeout, and the get is then routed from the gateway.)
        assertThat(oneHop).as("later one-hop gets that took exactly one hop").isGreaterThan(later / 2);
    }

    @Test
    void badModesAre400OnARealNode() throws Exception {
        RattanNode gateway = farthest.get(0);
        String[][] cases = {
            {"?routing=iterative&p=17", "p must be at most 16"},
            {"?gateways=9", "gateways must be at most 8"},
            {"?hedge=maybe", "hedge must be true or false"},
            {"?routing=iterative&gateways=2", "an iterative get runs at this gateway alone"},
            {"?routing=iterative&hedge=true", "an iterative get runs at this gateway alone"},
            {"?routing=iterative&onehop=true", "an iterative get runs at this gateway alone"},
            {"?onehop=maybe", "onehop must be true or false"},
        };
        for (String[] c : cases) {
            HttpResponse<String> r = get(gateway, c[0]);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("detail").asText()).as(c[0]).contains(c[1]);
        }
    }

    @Test
    void theGatewayExportsTheCostOfItsGetsByRouting() throws Exception {
        RattanNode gateway = farthest.get(1);
        getOk(gateway, "?routing=iterative&p=2");
        getOk(gateway, "?routing=greedy&hedge=false");

        String metrics = http.send(HttpRequest.newBuilder(uri(gateway, "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();

        assertThat(metrics).contains("rattan_gateway_get_messages_count{routing=\"iterative\"}",
                "rattan_gateway_get_messages_sum{routing=\"greedy\"}",
                "rattan_gateway_get_bytes_count{routing=\"iterative\"}",
                "rattan_gateway_get_bytes_sum{routing=\"greedy\"}");
    }

    // ---- the binary client and the CLI

    @Test
    void raceAndHedgedClientGetsReturnExactlyTheValueWithItsCost() {
        try (RattanClient client = RattanClient.builder().gateways(nonReplicaGateways(3)).build()) {
            for (GetOptions options : List.of(GetOptions.defaults(), GetOptions.of(RoutingMode.GREEDY).withGateways(3),
                    GetOptions.of(RoutingMode.ITERATIVE).withParallelism(2).withGateways(2).withHedge(true),
                    GetOptions.defaults().withOneHop(true), GetOptions.defaults().withGateways(2).withOneHop(true))) {
                GetResult r = client.getSync(KEY, options);
                assertThat(r.values()).as(options.toString()).extracting(GetResult.Value::value)
                        .containsExactly(VALUE);
                // A one-hop get goes straight to a replica's gateway once the client's image knows the key (0 hops).
                assertThat(r.hops()).as(options.toString()).isGreaterThanOrEqualTo(options.oneHop() ? 0 : 1);
                assertThat(r.cost().messages()).as(options.toString()).isGreaterThanOrEqualTo(2 * r.hops());
                assertThat(r.cost().bytes()).as(options.toString())
                        .isGreaterThanOrEqualTo((long) r.cost().messages() * (Cost.HEADER_BYTES + 1));
            }
        }
    }

    @Test
    void theCliGetsWithModeFlagsAndPrintsTheCost() {
        String gateways = String.join(",", nonReplicaGateways(2).stream().map(Address::toString).toList());
        for (String[] flags : new String[][] {
            {"--gateways", "2", "--hedge"},
            {"--routing", "iterative", "--p", "2", "--no-hedge"},
            {"--routing", "greedy"},
            {"--onehop"},
        }) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = RattanCli.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            List<String> args = new ArrayList<>(List.of("get", "-g", gateways));
            args.addAll(List.of(flags));
            args.add("name:" + NAME);

            int exit = cl.execute(args.toArray(String[]::new));

            assertThat(exit).as(err.toString()).isZero();
            // A one-hop get goes straight to a replica (0 hops) once the CLI's client has loaded the ring, which it
            // starts doing when built; before that it is routed. The others start at a node that is no replica.
            String hops = flags[0].equals("--onehop") ? "\\d+" : "[1-9]\\d*";
            assertThat(out.toString()).contains(VALUE.sha256().toHex() + "  ttl ")
                    .contains("  " + new String(VALUE.toByteArray(), java.nio.charset.StandardCharsets.UTF_8))
                    .containsPattern("\\(1 value, " + hops + " hops, [1-9]\\d* messages, [1-9]\\d* bytes\\)");
        }
    }

    // ---- helpers

    /** The binary gateways of the {@code n} nodes farthest from the key, none of them a replica. */
    private static List<Address> nonReplicaGateways(int n) {
        return farthest.subList(0, n).stream()
                .map(node -> new Address("127.0.0.1", node.gatewayAddress().getPort()))
                .toList();
    }

    private static URI uri(RattanNode node, String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + node.httpAddress().getPort() + pathAndQuery);
    }

    private static HttpResponse<String> get(RattanNode node, String query) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(node, "/v1/keys/" + KEY.toHex() + query))
                .timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode getOk(RattanNode node, String query) throws IOException, InterruptedException {
        HttpResponse<String> r = get(node, query);
        assertThat(r.statusCode()).as(query + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static void assertValue(JsonNode body, String query) {
        assertThat(body.get("key").asText()).isEqualTo(KEY.toHex());
        assertThat(body.get("values")).as(query).hasSize(1);
        assertThat(Base64.getDecoder().decode(body.get("values").get(0).get("value").asText())).as(query)
                .isEqualTo(VALUE.toByteArray());
        assertThat(body.get("placemark").isNull()).isTrue();
    }
}
