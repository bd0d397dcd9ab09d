package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The HTTP API end to end over loopback, against an in-memory backend. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpGatewayTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "0123456789abcdef0123456789abcdef01234567";
    private static final int VALUE_BYTES_MAX = 100;
    private static final int TTL_SECONDS_MAX = 86_400;
    private static final int PAGE_VALUES_MAX = 8;
    private static final NodeConfig CONFIG = NodeConfig.defaults()
            .withLimits(VALUE_BYTES_MAX, TTL_SECONDS_MAX, PAGE_VALUES_MAX, 10 * VALUE_BYTES_MAX)
            .withTimeouts(200, 100, 50, 1_000);

    private EventLoopGroup group;
    private FakeBackend backend;
    private HttpGateway gateway;
    private HttpClient http;

    @BeforeEach
    void start() {
        group = new NioEventLoopGroup(2);
        backend = new FakeBackend(CONFIG);
        gateway = new HttpGateway(group, new InetSocketAddress("127.0.0.1", 0), backend);
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        gateway.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        backend.close();
    }

    // ---- put and get

    @Test
    void putThenGetReturnsTheValue() throws Exception {
        backend.cost = new Cost(5, 700);
        byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> put = send("POST", "/v1/keys/" + KEY + "?ttl=60", hello);
        assertThat(put.statusCode()).isEqualTo(201);
        assertThat(put.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode created = JSON.readTree(put.body());
        String hash = Bytes.utf8("hello").sha256().toHex();
        assertThat(created.get("key").asText()).isEqualTo(KEY);
        assertThat(created.get("valueHash").asText()).isEqualTo(hash);
        assertThat(created.get("ttlSeconds").asInt()).isEqualTo(60);
        assertThat(created.get("replicas").asInt()).isEqualTo(3);
        assertThat(put.headers().firstValue("location")).hasValue("/v1/keys/" + KEY + "/" + hash);
        ClientPut sent = backend.lastRequest();
        assertThat(sent).isEqualTo(new ClientPut(Id.fromHex(KEY), Bytes.utf8("hello"), 60, Bytes.EMPTY));

        HttpResponse<String> get = send("GET", "/v1/keys/" + KEY, null);
        assertThat(get.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(get.body());
        assertThat(body.get("key").asText()).isEqualTo(KEY);
        assertThat(body.get("values")).hasSize(1);
        JsonNode v = body.get("values").get(0);
        assertThat(Base64.getDecoder().decode(v.get("value").asText())).isEqualTo(hello);
        assertThat(v.get("valueHash").asText()).isEqualTo(hash);
        assertThat(v.get("ttlRemainingSeconds").asLong()).isEqualTo(60);
        assertThat(body.get("placemark").isNull()).isTrue();
        assertThat(body.get("cost").get("hops").asInt()).isEqualTo(2);
        assertThat(body.get("cost").get("messages").asInt()).isEqualTo(5);
        assertThat(body.get("cost").get("bytes").asLong()).isEqualTo(700);
        assertThat(backend.<ClientGet>lastRequest())
                .isEqualTo(ClientGet.of(Id.fromHex(KEY), GetOptions.defaults()).page(PAGE_VALUES_MAX, Bytes.EMPTY));
    }

    @Test
    void binaryValuesRoundTripExactly() throws Exception {
        byte[] value = new byte[VALUE_BYTES_MAX];
        new Random(7).nextBytes(value);
        assertThat(send("POST", "/v1/keys/" + KEY, value).statusCode()).isEqualTo(201);
        JsonNode v = JSON.readTree(send("GET", "/v1/keys/" + KEY, null).body()).get("values").get(0);
        assertThat(Base64.getDecoder().decode(v.get("value").asText())).isEqualTo(value);
    }

    @Test
    void getOfAnEmptyKeyIsAnEmptyList() throws Exception {
        HttpResponse<String> get = send("GET", "/v1/keys/" + KEY, null);
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get.body()).get("values")).isEmpty();

        backend.override = m -> new GetReply(Status.NOT_FOUND, List.of(), Bytes.EMPTY, 1, "");
        HttpResponse<String> notFound = send("GET", "/v1/keys/" + KEY, null);
        assertThat(notFound.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(notFound.body()).get("values")).isEmpty();
    }

    @Test
    void putWithoutTtlLivesAnHour() throws Exception {
        assertThat(send("POST", "/v1/keys/" + KEY, new byte[] {1}).statusCode()).isEqualTo(201);
        assertThat(backend.<ClientPut>lastRequest().ttlSeconds()).isEqualTo(3600);
    }

    @Test
    void putSecretTravelsOnlyAsTheBindingOfTheValuesProof() throws Exception {
        HttpResponse<String> put = send("POST", "/v1/keys/" + KEY, new byte[] {1}, "Rattan-Secret", "s3cret");
        assertThat(put.statusCode()).isEqualTo(201);
        Bytes binding = backend.<ClientPut>lastRequest().binding();
        Bytes valueHash = Bytes.wrap(new byte[] {1}).sha256();
        assertThat(binding).as("SHA-256(proof ‖ key ‖ value hash)").isEqualTo(SecretBinding.of(
                SecretBinding.proof(Bytes.utf8("s3cret"), Id.fromHex(KEY), valueHash), Id.fromHex(KEY), valueHash));
        assertThat(binding).isNotEqualTo(Bytes.utf8("s3cret").sha256())
                .isNotEqualTo(SecretBinding.of(Bytes.utf8("s3cret"), Id.fromHex(KEY), valueHash));
    }

    @Test
    void putRejectsBadTtls() throws Exception {
        String tooLong = String.valueOf(TTL_SECONDS_MAX + 1);
        for (String ttl : new String[] {"abc", "0", "-5", "1.5", "", "99999999999999", tooLong}) {
            HttpResponse<String> put = send("POST", "/v1/keys/" + KEY + "?ttl=" + ttl, new byte[] {1});
            assertProblem(put, 400, "bad-request", "ttl");
        }
        assertProblem(send("POST", "/v1/keys/" + KEY + "?ttl=5&ttl=6", new byte[] {1}), 400, "bad-request",
                "ttl is given 2 times");
        assertThat(send("POST", "/v1/keys/" + KEY + "?ttl=" + TTL_SECONDS_MAX, new byte[] {1}).statusCode())
                .isEqualTo(201);
        assertThat(backend.requests).hasSize(1);
    }

    @Test
    void putRejectsAnEmptyValueAndAnEmptySecret() throws Exception {
        assertProblem(send("POST", "/v1/keys/" + KEY, new byte[0]), 400, "bad-request", "the value is empty");
        assertProblem(send("POST", "/v1/keys/" + KEY, new byte[] {1}, "Rattan-Secret", ""), 400, "bad-request",
                "Rattan-Secret is empty");
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void aValueJustOverTheLimitIs413AndTheConnectionStaysUsable() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(request("POST", "/v1/keys/" + KEY, new byte[VALUE_BYTES_MAX + 1]));
            RawResponse r = c.read();
            assertThat(r.status).isEqualTo(413);
            assertThat(r.headers.get("content-type")).isEqualTo("application/problem+json");
            assertThat(JSON.readTree(r.body).get("detail").asText()).contains("101 bytes").contains("at most 100");
            c.send(request("GET", "/health", null));
            assertThat(c.read().status).isEqualTo(200);
        }
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void aBodyFarOverTheLimitIs413ThenClose() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(request("POST", "/v1/keys/" + KEY, new byte[VALUE_BYTES_MAX + HttpGateway.BODY_SLACK_BYTES + 1]));
            RawResponse r = c.read();
            assertThat(r.status).isEqualTo(413);
            assertThat(r.headers.get("content-type")).isEqualTo("application/problem+json");
            assertThat(r.headers.get("connection")).isEqualTo("close");
            assertThat(JSON.readTree(r.body).get("type").asText()).endsWith("/value-too-large");
            assertThat(c.atEof()).isTrue();
        }
        assertThat(send("GET", "/health", null).statusCode()).isEqualTo(200);
    }

    @Test
    void anOversizedBodyAnnouncedWithExpectContinueIs413InsteadOfTheGoAhead() throws Exception {
        // A raw socket: JDK 17's HttpClient waits forever for a 100 that never comes (JDK-8286171).
        int length = VALUE_BYTES_MAX + HttpGateway.BODY_SLACK_BYTES + 1;
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(("POST /v1/keys/" + KEY + " HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: "
                    + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            RawResponse r = c.read();
            assertProblem(r, 413, "value-too-large", "at most 100 bytes");
            assertThat(c.atEof()).isTrue();
        }
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void aSmallBodyAnnouncedWithExpectContinueGetsTheGoAhead() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(("POST /v1/keys/" + KEY + " HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                    + "Content-Length: 2\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(c.read().status).isEqualTo(100);
            c.send(new byte[] {1, 2});
            assertThat(c.read().status).isEqualTo(201);
        }
    }

    @Test
    void getForwardsMaxAndPlacemarkAndRendersTheNextPlacemark() throws Exception {
        backend.placemark = Bytes.fromHex("abcd");
        HttpResponse<String> get = send("GET", "/v1/keys/" + KEY + "?max=2&placemark=00FF", null);
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest())
                .isEqualTo(ClientGet.of(Id.fromHex(KEY), GetOptions.defaults()).page(2, Bytes.fromHex("00ff")));
        assertThat(JSON.readTree(get.body()).get("placemark").asText()).isEqualTo("abcd");
    }

    @Test
    void getForwardsTheRoutingMode() throws Exception {
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=greedy", null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().routing()).isEqualTo(RoutingMode.GREEDY);
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=delay-aware", null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().routing()).isEqualTo(RoutingMode.DELAY_AWARE);
        assertThat(send("GET", "/v1/keys/" + KEY, null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().routing()).isEqualTo(RoutingMode.DEFAULT);
    }

    @Test
    void getModesDefaultToDelayAwareOneGatewayHedged() throws Exception {
        assertThat(send("GET", "/v1/keys/" + KEY, null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().routing()).isEqualTo(RoutingMode.DELAY_AWARE);
        assertThat(backend.getModes).containsExactly("g=1 hedge=true");
    }

    @Test
    void getForwardsPGatewaysAndHedge() throws Exception {
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=iterative&p=2", null).statusCode()).isEqualTo(200);
        ClientGet iterative = backend.lastRequest();
        assertThat(iterative.routing()).isEqualTo(RoutingMode.ITERATIVE);
        assertThat(iterative.options().parallelism()).isEqualTo(2);
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=Iterative", null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().options().parallelism()).as("the node's default p").isZero();
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=greedy&gateways=3&hedge=false", null).statusCode())
                .isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().routing()).isEqualTo(RoutingMode.GREEDY);
        assertThat(send("GET", "/v1/keys/" + KEY + "?gateways=8&hedge=TRUE", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v1/keys/" + KEY + "?routing=iterative&gateways=1&hedge=false", null)
                .statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v1/keys/" + KEY + "?onehop=true", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v1/keys/" + KEY + "?onehop=False&hedge=false", null).statusCode()).isEqualTo(200);
        // An iterative get is not hedged by default: it runs at this gateway alone.
        assertThat(backend.getModes).containsExactly("g=1 hedge=false", "g=1 hedge=false", "g=3 hedge=false",
                "g=8 hedge=true", "g=1 hedge=false", "g=1 hedge=true onehop", "g=1 hedge=false");
    }

    @Test
    void getRejectsBadModesWithAClearMessage() throws Exception {
        String[][] cases = {
            {"p=0&routing=iterative", "p must be at least 1"},
            {"p=17&routing=iterative", "p must be at most 16"},
            {"p=two&routing=iterative", "p must be a whole number"},
            {"p=2", "use it with routing=iterative"},
            {"p=2&routing=greedy", "use it with routing=iterative"},
            {"gateways=0", "gateways must be at least 1"},
            {"gateways=9", "gateways must be at most 8"},
            {"gateways=2&gateways=3", "gateways is given 2 times"},
            {"hedge=maybe", "hedge must be true or false, got 'maybe'"},
            {"hedge=1", "hedge must be true or false"},
            {"routing=iterative&gateways=2", "an iterative get runs at this gateway alone"},
            {"routing=iterative&hedge=true", "an iterative get runs at this gateway alone"},
            {"routing=iterative&onehop=true", "an iterative get runs at this gateway alone"},
            {"onehop=yes", "onehop must be true or false, got 'yes'"},
            {"routing=fastest", "routing must be greedy, delay-aware or iterative, got 'fastest'"},
        };
        for (String[] c : cases) {
            assertProblem(send("GET", "/v1/keys/" + KEY + "?" + c[0], null), 400, "bad-request", c[1]);
        }
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void aQuorumGetForwardsItsConsistencyAndRAndSaysHowManyReplicasAnswered() throws Exception {
        backend.override = m -> new GetReply(Status.OK, List.of(new ValueEntry(Bytes.utf8("v"), 5_000)), Bytes.EMPTY,
                1, "", Cost.ZERO, List.of(), 3);
        HttpResponse<String> byDefault = send("GET", "/v1/keys/" + KEY + "?consistency=quorum", null);
        assertThat(byDefault.statusCode()).isEqualTo(200);
        assertThat(backend.getOptions.get(0).consistency()).isEqualTo(Consistency.QUORUM);
        assertThat(backend.getOptions.get(0).readReplicas()).as("the node's default").isZero();
        JsonNode quorum = JSON.readTree(byDefault.body()).get("quorum");
        assertThat(quorum.get("r").asInt()).as("k/2+1 of k = 4").isEqualTo(3);
        assertThat(quorum.get("replicas").asInt()).isEqualTo(3);
        assertThat(quorum.get("partial").asBoolean()).isFalse();

        backend.override = m -> new GetReply(Status.PARTIAL, List.of(new ValueEntry(Bytes.utf8("v"), 5_000)),
                Bytes.EMPTY, 1, "1 of the 4 replicas asked for answered", Cost.ZERO, List.of(), 1);
        HttpResponse<String> partial = send("GET", "/v1/keys/" + KEY + "?consistency=QUORUM&r=4", null);
        assertThat(partial.statusCode()).as("a partial answer is an answer").isEqualTo(200);
        assertThat(backend.getOptions.get(1).readReplicas()).isEqualTo(4);
        JsonNode body = JSON.readTree(partial.body());
        assertThat(body.get("values")).hasSize(1);
        assertThat(body.get("quorum").get("r").asInt()).isEqualTo(4);
        assertThat(body.get("quorum").get("replicas").asInt()).isEqualTo(1);
        assertThat(body.get("quorum").get("partial").asBoolean()).isTrue();

        backend.override = null;
        HttpResponse<String> one = send("GET", "/v1/keys/" + KEY + "?consistency=one", null);
        assertThat(backend.getOptions.get(2).consistency()).isEqualTo(Consistency.ONE);
        assertThat(JSON.readTree(one.body()).has("quorum")).as("only a quorum get says how it went").isFalse();
    }

    @Test
    void badConsistencyOrRIs400() throws Exception {
        String[][] cases = {
            {"consistency=all", "consistency must be one or quorum, got 'all'"},
            {"consistency=quorum&consistency=one", "consistency is given 2 times"},
            {"r=2", "use it with consistency=quorum"},
            {"consistency=one&r=2", "use it with consistency=quorum"},
            {"consistency=quorum&r=0", "r must be at least 1"},
            {"consistency=quorum&r=5", "r must be at most 4 replicas, got 5"},
            {"consistency=quorum&r=many", "r must be a whole number"},
            {"consistency=quorum&routing=iterative", "cannot be iterative"},
        };
        for (String[] c : cases) {
            assertProblem(send("GET", "/v1/keys/" + KEY + "?" + c[0], null), 400, "bad-request", c[1]);
        }
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void getRejectsBadMaxAndPlacemark() throws Exception {
        for (String query : new String[] {"max=0", "max=" + (PAGE_VALUES_MAX + 1), "max=x", "max=-1",
                "placemark=zz", "placemark=abc", "placemark=" + "ab".repeat(300), "routing=fastest"}) {
            assertProblem(send("GET", "/v1/keys/" + KEY + "?" + query, null), 400, "bad-request",
                    query.substring(0, query.indexOf('=')));
        }
        assertThat(backend.requests).isEmpty();
    }

    // ---- keys

    @Test
    void nameKeysArePercentDecodedThenHashed() throws Exception {
        HttpResponse<String> put = send("POST", "/v1/keys/name:hello%20w%C3%B6rld%2F+x", new byte[] {1});
        assertThat(put.statusCode()).isEqualTo(201);
        Id expected = Id.ofName("hello wörld/+x");
        assertThat(backend.<ClientPut>lastRequest().key()).isEqualTo(expected);
        assertThat(JSON.readTree(put.body()).get("key").asText()).isEqualTo(expected.toHex());
        assertThat(send("GET", "/v1/keys/name:hello%20w%C3%B6rld%2F+x", null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().key()).isEqualTo(expected);
    }

    @Test
    void upperCaseHexKeysAreTheSameKey() throws Exception {
        assertThat(send("GET", "/v1/keys/" + KEY.toUpperCase(Locale.ROOT), null).statusCode()).isEqualTo(200);
        assertThat(backend.<ClientGet>lastRequest().key()).isEqualTo(Id.fromHex(KEY));
    }

    @Test
    void malformedKeysAre400WithAPreciseDetail() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("abc", "neither 40 hex digits (it has 3 characters)");
        cases.put(KEY.substring(1), "it has 39 characters");
        cases.put(KEY + "0", "it has 41 characters");
        cases.put("g" + KEY.substring(1), "character 1 is 'g'");
        cases.put("name:", "no text after the colon");
        cases.put("name:%ZZ", "bad percent-escape");
        cases.put("name:%C3", "does not decode to UTF-8");
        cases.put("", "the key is empty");
        // Over a raw socket: java.net.URI refuses to even build some of these.
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            for (Map.Entry<String, String> e : cases.entrySet()) {
                c.send(request("GET", "/v1/keys/" + e.getKey(), null));
                assertProblem(c.read(), 400, "bad-request", e.getValue());
                c.send(request("POST", "/v1/keys/" + e.getKey(), new byte[] {1}));
                assertProblem(c.read(), 400, "bad-request", e.getValue());
            }
        }
        assertThat(backend.requests).isEmpty();
    }

    // ---- remove

    @Test
    void removeNeedsTheRightSecret() throws Exception {
        send("POST", "/v1/keys/" + KEY, "v".getBytes(StandardCharsets.UTF_8), "Rattan-Secret", "right");
        String hash = Bytes.utf8("v").sha256().toHex();
        String path = "/v1/keys/" + KEY + "/" + hash;

        assertProblem(send("DELETE", path, null), 403, "forbidden", "a secret is required");
        assertProblem(send("DELETE", path, null, "Rattan-Secret", ""), 403, "forbidden", "a secret is required");
        assertProblem(send("DELETE", path, null, "Rattan-Secret", "wrong"), 403, "forbidden", "?legacySecret=true");
        assertProblem(send("DELETE", path + "?legacySecret=true", null, "Rattan-Secret", "right"), 403, "forbidden",
                "the secret does not match");

        HttpResponse<String> removed = send("DELETE", path, null, "Rattan-Secret", "right");
        assertThat(removed.statusCode()).isEqualTo(204);
        assertThat(removed.headers().firstValue("content-length")).isEmpty();
        assertThat(removed.body()).isEmpty();
        assertThat(backend.<ClientRemove>lastRequest()).as("the secret stops at the gateway: the remove carries the "
                + "value's proof").isEqualTo(new ClientRemove(Id.fromHex(KEY), Bytes.fromHex(hash),
                SecretBinding.proof(Bytes.utf8("right"), Id.fromHex(KEY), Bytes.fromHex(hash)), TTL_SECONDS_MAX));

        assertProblem(send("DELETE", path, null, "Rattan-Secret", "right"), 404, "not-found", hash);
        assertThat(JSON.readTree(send("GET", "/v1/keys/" + KEY, null).body()).get("values")).isEmpty();
    }

    @Test
    void removeForwardsItsTtlAndValidatesTheHash() throws Exception {
        String hash = Bytes.utf8("v").sha256().toHex();
        send("DELETE", "/v1/keys/" + KEY + "/" + hash + "?ttl=120", null, "Rattan-Secret", "s");
        assertThat(backend.<ClientRemove>lastRequest().ttlSeconds()).isEqualTo(120);
        int before = backend.requests.size();
        assertProblem(send("DELETE", "/v1/keys/" + KEY + "/" + hash.substring(1), null, "Rattan-Secret", "s"),
                400, "bad-request", "64 hex digits");
        assertProblem(send("DELETE", "/v1/keys/" + KEY + "/" + "z" + hash.substring(1), null, "Rattan-Secret", "s"),
                400, "bad-request", "character 1 is 'z'");
        assertProblem(send("DELETE", "/v1/keys/" + KEY + "/" + hash + "?ttl=0", null, "Rattan-Secret", "s"),
                400, "bad-request", "ttl");
        assertProblem(send("DELETE", "/v1/keys/bad/" + hash, null, "Rattan-Secret", "s"), 400, "bad-request", "key");
        assertThat(backend.requests).hasSize(before);
    }

    @Test
    void removeSecretIsTheRawHeaderBytesAndOnlyALegacyRemoveSendsThem() throws Exception {
        // A UTF-8 client (curl on a UTF-8 terminal) sends the secret's UTF-8 bytes; the proof must be of exactly those.
        String hash = Bytes.utf8("v").sha256().toHex();
        byte[] secret = "clé".getBytes(StandardCharsets.UTF_8);
        for (String query : new String[] {"", "?legacySecret=false", "?legacySecret=true"}) {
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(("DELETE /v1/keys/" + KEY + "/" + hash + query + " HTTP/1.1\r\nHost: x\r\nRattan-Secret: ")
                    .getBytes(StandardCharsets.US_ASCII));
            req.write(secret);
            req.write("\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            try (RawConnection c = new RawConnection(gateway.localAddress())) {
                c.send(req.toByteArray());
                assertThat(c.read().status).isEqualTo(404);
            }
            Bytes proof = SecretBinding.proof(Bytes.wrap(secret), Id.fromHex(KEY), Bytes.fromHex(hash));
            assertThat(backend.<ClientRemove>lastRequest().secret()).as(query)
                    .isEqualTo(query.endsWith("true") ? Bytes.wrap(secret) : proof);
        }
        assertProblem(send("DELETE", "/v1/keys/" + KEY + "/" + hash + "?legacySecret=maybe", null, "Rattan-Secret",
                "s"), 400, "bad-request", "legacySecret");
    }

    // ---- replies from the node

    @Test
    void everyReplyStatusMapsToItsHttpStatus() throws Exception {
        Object[][] cases = {
            {Status.NOT_FOUND, 404, "not-found"},
            {Status.FORBIDDEN, 403, "forbidden"},
            {Status.BAD_REQUEST, 400, "bad-request"},
            {Status.TOO_LARGE, 413, "value-too-large"},
            {Status.UNAVAILABLE, 503, "unavailable"},
            {Status.TIMEOUT, 504, "timeout"},
            {Status.INTERNAL, 500, "internal"},
        };
        String hash = Bytes.utf8("v").sha256().toHex();
        for (Object[] c : cases) {
            Status status = (Status) c[0];
            int code = (Integer) c[1];
            String type = (String) c[2];
            backend.override = m -> new ErrorReply(status, "detail " + status);
            assertProblem(send("GET", "/v1/keys/" + KEY, null), code, type, "detail " + status);
            backend.override = m -> new PutReply(status, 0, "put " + status);
            assertProblem(send("POST", "/v1/keys/" + KEY, new byte[] {1}), code, type, "put " + status);
            backend.override = m -> new RemoveReply(status, "rm " + status);
            assertProblem(send("DELETE", "/v1/keys/" + KEY + "/" + hash, null, "Rattan-Secret", "s"),
                    code, type, "rm " + status);
            if (status != Status.NOT_FOUND) {
                backend.override = m -> new GetReply(status, List.of(), Bytes.EMPTY, 0, "get " + status);
                assertProblem(send("GET", "/v1/keys/" + KEY, null), code, type, "get " + status);
            }
        }
    }

    @Test
    void unavailableCarriesRetryAfter() throws Exception {
        backend.override = m -> new ErrorReply(Status.UNAVAILABLE, "");
        HttpResponse<String> r = send("GET", "/v1/keys/" + KEY, null);
        assertProblem(r, 503, "unavailable", "retry");
        assertThat(r.headers().firstValue("retry-after")).hasValue("1");
    }

    @Test
    void aReplyOfTheWrongKindIs500() throws Exception {
        backend.override = m -> new RemoveReply(Status.OK, "");
        assertProblem(send("GET", "/v1/keys/" + KEY, null), 500, "internal", "unexpected");
    }

    @Test
    void aFailedBackendIs500AndAClosedOneIs503() throws Exception {
        backend.failure = new IllegalStateException("boom");
        assertProblem(send("GET", "/v1/keys/" + KEY, null), 500, "internal", "failed");
        backend.failure = new RejectedExecutionException("closed");
        assertProblem(send("GET", "/v1/keys/" + KEY, null), 503, "unavailable", "shutting down");
    }

    @Test
    void aBackendThatNeverAnswersIs504AfterItsTimeout() throws Exception {
        backend.hang = true;
        long start = System.nanoTime();
        HttpResponse<String> r = send("GET", "/v1/keys/" + KEY, null);
        assertProblem(r, 504, "timeout", "did not answer");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(Duration.ofMillis(CONFIG.requestTimeoutMillis()));
        // The connection is still good for the next request.
        backend.hang = false;
        assertThat(send("GET", "/v1/keys/" + KEY, null).statusCode()).isEqualTo(200);
    }

    // ---- operations

    @Test
    void healthReadyNodeAndMetrics() throws Exception {
        HttpResponse<String> health = send("GET", "/health", null);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(health.body()).get("status").asText()).isEqualTo("serving");

        assertThat(send("GET", "/ready", null).statusCode()).isEqualTo(200);
        backend.joined = false;
        HttpResponse<String> notReady = send("GET", "/ready", null);
        assertProblem(notReady, 503, "not-ready", "not joined");
        assertThat(notReady.headers().firstValue("retry-after")).hasValue("1");

        send("POST", "/v1/keys/" + KEY, new byte[] {1});
        JsonNode node = JSON.readTree(send("GET", "/node", null).body());
        assertThat(node.get("id").asText()).isEqualTo(FakeBackend.SELF.id().toHex());
        assertThat(node.get("address").asText()).isEqualTo("127.0.0.1:4000");
        assertThat(node.get("joined").asBoolean()).isFalse();
        assertThat(node.get("leafSet")).hasSize(2);
        assertThat(node.get("leafSet").get(0).get("id").asText()).isEqualTo(Id.ofName("left").toHex());
        assertThat(node.get("leafSet").get(1).get("address").asText()).isEqualTo("[::1]:4020");
        assertThat(node.get("routingRowFill").toString()).isEqualTo("[15,3]");
        assertThat(node.get("routingEntries").asInt()).isEqualTo(18);
        assertThat(node.get("storedRecords").asLong()).isEqualTo(1);

        HttpResponse<String> metrics = send("GET", "/metrics", null);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(metrics.body()).contains("rattan_gets_total 7.0");
    }

    @Test
    void unknownPathsAre404() throws Exception {
        for (String path : new String[] {"/", "/nope", "/v1", "/v1/keys", "/v2/keys/" + KEY, "/health/",
                "/v1/keys/" + KEY + "/a/b", "//health"}) {
            assertProblem(send("GET", path, null), 404, "unknown-path", "no resource");
        }
    }

    @Test
    void wrongMethodsAre405WithAllow() throws Exception {
        String hash = Bytes.utf8("v").sha256().toHex();
        Object[][] cases = {
            {"PUT", "/v1/keys/" + KEY, "GET, POST"},
            {"DELETE", "/v1/keys/" + KEY, "GET, POST"},
            {"GET", "/v1/keys/" + KEY + "/" + hash, "DELETE"},
            {"POST", "/health", "GET"},
            {"DELETE", "/metrics", "GET"},
            {"POST", "/ready", "GET"},
            {"PATCH", "/node", "GET"},
        };
        for (Object[] c : cases) {
            HttpResponse<String> r = send((String) c[0], (String) c[1], null);
            assertProblem(r, 405, "method-not-allowed", (String) c[0]);
            assertThat(r.headers().firstValue("allow")).hasValue((String) c[2]);
        }
    }

    // ---- the connection

    @Test
    void garbageOnThePortIs400ThenCloseAndOthersAreStillServed() throws Exception {
        // What a TLS client sends first, then a line too long to be HTTP.
        byte[] garbage = new byte[6000];
        new Random(1).nextBytes(garbage);
        garbage[0] = 0x16;
        garbage[1] = 0x03;
        garbage[2] = 0x01;
        for (int i = 3; i < garbage.length; i++) {
            garbage[i] = (byte) ('A' + (garbage[i] & 0x0F));
        }
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(garbage);
            RawResponse r = c.read();
            assertThat(r.status).isEqualTo(400);
            assertThat(JSON.readTree(r.body).get("detail").asText()).startsWith("malformed HTTP request");
            assertThat(c.atEof()).isTrue();
        }
        // Random binary noise: whatever the decoder makes of it, the connection ends and nothing breaks.
        byte[] noise = new byte[64 * 1024];
        new Random(2).nextBytes(noise);
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            try {
                c.send(noise);
            } catch (IOException e) {
                // The server may close before reading it all.
            }
            assertThat(c.drainUntilEof()).satisfiesAnyOf(
                    s -> assertThat(s).isEmpty(),
                    s -> assertThat(s).startsWith("HTTP/1.1 400"));
        }
        assertThat(send("GET", "/health", null).statusCode()).isEqualTo(200);
    }

    @Test
    void keepAliveServesManyRequestsOnOneConnection() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            for (int i = 0; i < 5; i++) {
                c.send(request("POST", "/v1/keys/" + KEY, new byte[] {(byte) i}));
                RawResponse put = c.read();
                assertThat(put.status).isEqualTo(201);
                assertThat(put.headers.get("connection")).isEqualTo("keep-alive");
                c.send(request("GET", "/v1/keys/" + KEY, null));
                assertThat(JSON.readTree(c.read().body).get("values")).hasSize(i + 1);
            }
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        backend.delayMillis = 20;
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        batch.write(request("POST", "/v1/keys/" + KEY, new byte[] {1}));
        batch.write(request("GET", "/health", null));
        batch.write(request("GET", "/v1/keys/" + KEY, null));
        batch.write(request("GET", "/nope", null));
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send(batch.toByteArray());
            assertThat(c.read().status).isEqualTo(201);
            assertThat(c.read().status).isEqualTo(200);
            RawResponse get = c.read();
            assertThat(get.status).isEqualTo(200);
            assertThat(JSON.readTree(get.body).get("values")).hasSize(1);
            assertThat(c.read().status).isEqualTo(404);
        }
    }

    @Test
    void http10WithoutKeepAliveIsClosedAfterTheResponse() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send("GET /health HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            RawResponse r = c.read();
            assertThat(r.status).isEqualTo(200);
            assertThat(r.headers.get("connection")).isEqualTo("close");
            assertThat(c.atEof()).isTrue();
        }
    }

    @Test
    void connectionCloseIsHonoured() throws Exception {
        try (RawConnection c = new RawConnection(gateway.localAddress())) {
            c.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(c.read().status).isEqualTo(200);
            assertThat(c.atEof()).isTrue();
        }
    }

    @Test
    void aClientThatAsksForHttp2GetsHttp11() throws Exception {
        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> r = h2.send(HttpRequest.newBuilder(uri("/health")).build(), BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void closeStopsListeningAndABusyPortFailsToBind() throws Exception {
        InetSocketAddress bound = gateway.localAddress();
        assertThat(bound.getPort()).isPositive();
        assertThatThrownBy(() -> new HttpGateway(group, bound, backend))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot bind the HTTP gateway");
        assertThat(gateway.isListening()).isTrue();
        gateway.close();
        gateway.close();
        // The socket itself is closed. (A connect probe to the freed port is no proof either way: once freed, the
        // kernel may hand that port to any other listener on the machine, and on CI once did.)
        assertThat(gateway.isListening()).isFalse();
    }

    @Test
    void servesOnAnEpollGroupToo() throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll is not available here");
        EventLoopGroup epoll = new EpollEventLoopGroup(1);
        try (HttpGateway g = new HttpGateway(epoll, new InetSocketAddress("127.0.0.1", 0), backend)) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + g.localAddress().getPort() + "/health")).build(),
                    BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
        } finally {
            epoll.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    // ---- helpers

    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + gateway.localAddress().getPort() + pathAndQuery);
    }

    private HttpResponse<String> send(String method, String pathAndQuery, byte[] body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(pathAndQuery))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), BodyHandlers.ofString());
    }

    private static void assertProblem(HttpResponse<String> r, int status, String type, String detailPart)
            throws IOException {
        assertProblem(status, type, detailPart, r.statusCode(), r.headers().firstValue("content-type").orElse(null),
                r.body());
    }

    private static void assertProblem(RawResponse r, int status, String type, String detailPart) throws IOException {
        assertProblem(status, type, detailPart, r.status, r.headers.get("content-type"), r.body);
    }

    private static void assertProblem(int status, String type, String detailPart, int actualStatus,
                                      String contentType, String body) throws IOException {
        assertThat(actualStatus).as(body).isEqualTo(status);
        assertThat(contentType).isEqualTo("application/problem+json");
        JsonNode p = JSON.readTree(body);
        assertThat(p.get("type").asText()).isEqualTo("https://rattan.dev/problems/" + type);
        assertThat(p.get("title").asText()).isNotBlank();
        assertThat(p.get("status").asInt()).isEqualTo(status);
        assertThat(p.get("detail").asText()).contains(detailPart);
    }

    private static byte[] request(String method, String path, byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((method + " " + path + " HTTP/1.1\r\nHost: test\r\nContent-Length: "
                + (body == null ? 0 : body.length) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        if (body != null) {
            out.write(body);
        }
        return out.toByteArray();
    }

    /** An HTTP/1.1 response read off a raw socket. */
    private static final class RawResponse {
        int status;
        final Map<String, String> headers = new LinkedHashMap<>();
        String body;
    }

    /** A plain socket, to send what no HTTP client library would and to see exactly when the server closes. */
    private static final class RawConnection implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        RawConnection(InetSocketAddress address) throws IOException {
            socket = new Socket(address.getAddress(), address.getPort());
            socket.setSoTimeout(10_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        void send(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        RawResponse read() throws IOException {
            RawResponse r = new RawResponse();
            String statusLine = line();
            assertThat(statusLine).startsWith("HTTP/1.1 ");
            r.status = Integer.parseInt(statusLine.substring(9, 12));
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                r.headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
            }
            byte[] body = in.readNBytes(Integer.parseInt(r.headers.getOrDefault("content-length", "0")));
            r.body = new String(body, StandardCharsets.UTF_8);
            return r;
        }

        boolean atEof() throws IOException {
            return in.read() == -1;
        }

        String drainUntilEof() throws IOException {
            try {
                return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            } catch (SocketException e) {
                // Reset by the server: it closed with our bytes unread, which is also an end.
                return "";
            }
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c == -1) {
                    throw new IOException("connection closed mid-response after '" + sb + "'");
                }
                if (c != '\r') {
                    sb.append((char) c);
                }
            }
            return sb.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
