package io.rattan.node.owned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.SignedOp;
import io.rattan.api.ValueFilter;
import io.rattan.client.GetResult;
import io.rattan.client.OwnerKey;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.cli.RattanCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ?owner=} and {@code &valueId=} on real nodes (Netty, RocksDB, one JVM): two owners' values and unowned ones
 * under one key; each filtered get, routed, iterative, one-hop or quorum, over HTTP, the Java client and the CLI,
 * returns exactly the matching values, and pages of one value walk only them. One cluster for the whole class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnedFiltersTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
    private static final Id KEY = Id.ofName("owned-filters");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Value ids each owner puts. */
    private static final List<Long> ALICES = List.of(1L, 2L, 3L);
    private static final List<Long> BOBS = List.of(1L, 2L);
    private static final int UNOWNED = 2;

    private final OwnerKey alice = OwnerKey.generate();
    private final OwnerKey bob = OwnerKey.generate();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    @TempDir
    static Path dir;
    private LocalCluster cluster;
    private RattanClient client;

    @BeforeAll
    void putEveryValue() throws Exception {
        cluster = LocalCluster.start(4, dir, CONFIG);
        client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(2).gatewayAddress().getPort())).build();
        long expiry = System.currentTimeMillis() / 1000 + 3600;
        for (long id : ALICES) {
            putOwned(alice, id, expiry, "alice " + id);
        }
        for (long id : BOBS) {
            putOwned(bob, id, expiry, "bob " + id);
        }
        for (int i = 0; i < UNOWNED; i++) {
            HttpResponse<String> r = post("?ttl=600", new String[0], "unowned " + i);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }
        // W = 2 of 3: every replica holds every value before a get of one replica is judged.
        int values = ALICES.size() + BOBS.size() + UNOWNED;
        await().atMost(WAIT).until(() -> held() == values * CONFIG.replicas());
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private void putOwned(OwnerKey owner, long valueId, long expiresAt, String data) throws Exception {
        OwnerStamp s = owner.sign(SignedOp.PUT, KEY, valueId, 1, expiresAt, Bytes.utf8(data).sha256());
        HttpResponse<String> r = post("", new String[] {"Rattan-Owner", b64(s.owner()),
            "Rattan-Value-Id", Long.toUnsignedString(valueId), "Rattan-Seq", "1",
            "Rattan-Expires", Long.toString(expiresAt), "Rattan-Signature", b64(s.signature())}, data);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private static String b64(Bytes b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
    }

    private HttpResponse<String> post(String query, String[] headers, String data) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(0, query)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(data, StandardCharsets.UTF_8));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(int node, String query) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(node, query)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(int node, String query) {
        return URI.create("http://127.0.0.1:" + cluster.node(node).httpAddress().getPort() + "/v1/keys/"
                + KEY.toHex() + query);
    }

    private long held() throws Exception {
        long n = 0;
        for (RattanNode node : cluster.liveNodes()) {
            for (StoredRecord r : node.localRecords().get(10, TimeUnit.SECONDS)) {
                n += r.key().equals(KEY) ? 1 : 0;
            }
        }
        return n;
    }

    /** Every value a get with {@code query} returns, following placemarks, as "owner/valueId" strings. */
    private List<String> walk(int node, String query, int pageMax) throws Exception {
        List<String> out = new ArrayList<>();
        String mark = "";
        for (int pages = 0; pages < 20; pages++) {
            HttpResponse<String> r = get(node, query + (mark.isEmpty() ? "" : "&placemark=" + mark));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.get("values").size()).as(r.body()).isBetween(1, pageMax);
            for (JsonNode v : body.get("values")) {
                out.add(v.has("owner") ? v.get("owner").asText() + "/" + v.get("valueId").asText() : "unowned");
            }
            if (body.get("placemark").isNull()) {
                return out;
            }
            mark = body.get("placemark").asText();
        }
        throw new AssertionError("more than 20 pages");
    }

    private static List<String> of(OwnerKey owner, List<Long> ids) {
        return ids.stream().map(id -> owner.publicKeyBase64Url() + "/" + id).toList();
    }

    @Test
    void anOwnerFilterReturnsOnlyThatOwnersValuesOnEveryPath() throws Exception {
        String a = "?owner=" + alice.publicKeyBase64Url();
        String b = "?owner=" + bob.publicKeyBase64Url();
        // From every node: one of the four is no replica of the key (k = 3), so its gets travel (an iterative one
        // asks the others, a one-hop one goes straight to a replica).
        for (int node = 0; node < cluster.size(); node++) {
            for (String how : List.of("", "&routing=greedy", "&routing=iterative&hedge=false", "&onehop=true",
                    "&consistency=quorum", "&consistency=quorum&r=3", "&gateways=2")) {
                String as = "node " + node + how;
                assertThat(walk(node, a + how, 100)).as(as).containsExactlyInAnyOrderElementsOf(of(alice, ALICES));
                assertThat(walk(node, b + how, 100)).as(as).containsExactlyInAnyOrderElementsOf(of(bob, BOBS));
                assertThat(walk(node, a + "&valueId=2" + how, 100)).as(as).containsExactlyElementsOf(of(alice,
                        List.of(2L)));
                assertThat(walk(node, b + "&valueId=1" + how, 100)).as(as).containsExactlyElementsOf(of(bob,
                        List.of(1L)));
            }
        }
        assertThat(walk(1, "?max=100", 100)).as("no filter: every value")
                .hasSize(ALICES.size() + BOBS.size() + UNOWNED).contains("unowned");
        JsonNode none = JSON.readTree(get(1, b + "&valueId=3").body()).get("values");
        assertThat(none).as("bob has no value 3").isEmpty();
    }

    @Test
    void pagesOfOneValueWalkOnlyTheMatchingValues() throws Exception {
        String a = "?max=1&owner=" + alice.publicKeyBase64Url();
        for (int node = 0; node < cluster.size(); node++) {
            assertThat(walk(node, a, 1)).containsExactlyInAnyOrderElementsOf(of(alice, ALICES));
            assertThat(walk(node, a + "&consistency=quorum", 1)).containsExactlyInAnyOrderElementsOf(of(alice, ALICES));
            assertThat(walk(node, a + "&routing=iterative&hedge=false", 1))
                    .containsExactlyInAnyOrderElementsOf(of(alice, ALICES));
            assertThat(walk(node, "?max=1&owner=" + bob.publicKeyBase64Url() + "&onehop=true", 1))
                    .containsExactlyInAnyOrderElementsOf(of(bob, BOBS));
        }
    }

    @Test
    void malformedFiltersAre400() throws Exception {
        String owner = alice.publicKeyBase64Url();
        String short16 = b64(Bytes.wrap(new byte[16]));
        for (String[] bad : List.of(new String[] {"?valueId=1", "give owner too"},
                new String[] {"?owner=" + owner.substring(1) + "*", "owner must be base64url"},
                new String[] {"?owner=" + short16, "owner must be 32 bytes"},
                new String[] {"?owner=" + owner + "%3D", "owner must be 32 bytes"},
                new String[] {"?owner=" + owner + "&valueId=abc", "valueId must be an unsigned decimal"},
                new String[] {"?owner=" + owner + "&valueId=-1", "valueId must be an unsigned decimal"},
                new String[] {"?owner=" + owner + "&valueId=18446744073709551616", "valueId must be"},
                new String[] {"?owner=" + owner + "&owner=" + owner, "owner is given 2 times"})) {
            HttpResponse<String> r = get(1, bad[0]);
            assertThat(r.statusCode()).as(bad[0] + ": " + r.body()).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("detail").asText()).as(bad[0]).contains(bad[1]);
        }
    }

    @Test
    void theJavaClientAndTheCommandLineFilterToo() throws Exception {
        Bytes a = alice.publicKey();
        GetResult all = client.getSync(KEY, GetOptions.builder().owner(a).hedge(true).build());
        assertThat(all.values()).hasSize(ALICES.size())
                .allMatch(v -> v.owner() != null && v.owner().owner().equals(a));
        GetResult one = client.getSync(KEY, GetOptions.builder().owner(a).valueId(3).oneHop(true).build());
        assertThat(one.values()).singleElement().matches(v -> v.owner().valueId() == 3);
        GetResult quorum = client.getSync(KEY, GetOptions.of(RoutingMode.GREEDY).withQuorum(3)
                .withFilter(ValueFilter.owner(bob.publicKey())));
        assertThat(quorum.values()).extracting(GetResult.Value::utf8).containsExactlyInAnyOrder("bob 1", "bob 2");

        String gw = "127.0.0.1:" + cluster.node(3).gatewayAddress().getPort();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = RattanCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute("get", "-g", gw, "--owner", bob.publicKeyBase64Url(), "--value-id", "2",
                KEY.toHex());
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains("bob 2", "(1 value,").doesNotContain("bob 1", "alice", "unowned");
        CommandLine usage = RattanCli.commandLine();
        usage.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(usage.execute("get", "-g", gw, "--value-id", "2", KEY.toHex())).isEqualTo(2);
        Set<Integer> exits = new HashSet<>();
        for (String bad : List.of("short", bob.publicKeyBase64Url() + "=")) {
            CommandLine c = RattanCli.commandLine();
            c.setErr(new PrintWriter(new StringWriter(), true));
            exits.add(c.execute("get", "-g", gw, "--owner", bad, KEY.toHex()));
        }
        assertThat(exits).containsExactly(2);
    }
}
