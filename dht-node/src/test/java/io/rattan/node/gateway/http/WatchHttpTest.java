package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.client.OwnerKey;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.WatchLimits;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.gateway.http.SseTestClient.Event;
import io.rattan.node.limits.Port;
import io.rattan.node.netty.TransportListener.Refusal;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/keys/{key}/watch} on a cluster of five real nodes (Netty, RocksDB, one JVM), read as server-sent
 * events with java.net.http: a key's live values then READY, puts through other gateways, removes, expiries, the
 * owner filter, a resume with Last-Event-ID that gets exactly the events missed, a malformed id (400), the gateway's
 * bound on watches (429), and a client that stops reading (dropped, its connection closed). Each test watches through
 * its own gateway node: every node serves at most two watches here, and one node's streams stay out of another's
 * count. Leases of 9 s, so that registrations renew during the tests.
 */
class WatchHttpTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int VALUE_BYTES_MAX = 65_536;
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2)
            .withLimits(VALUE_BYTES_MAX, 7 * 24 * 3600, 256, 1 << 20).toBuilder()
            .watch(new WatchLimits(9_000, 2, 100_000, 25_000)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(5, dir, CONFIG);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void liveValuesThenReadyThenPutsRemovesAndExpiries() throws Exception {
        Id key = Id.ofName("watch-changes");
        String a = put(1, key, "a", 3600, "s");
        String b = put(2, key, "b", 3600, "s");
        try (SseTestClient watch = SseTestClient.open(HTTP, watchUri(0, key, ""), null)) {
            assertThat(watch.status()).isEqualTo(200);
            HttpResponse<InputStream> head = watch.response();
            assertThat(head.headers().firstValue("Content-Type")).contains("text/event-stream");
            assertThat(head.headers().firstValue("Cache-Control")).contains("no-cache");
            assertThat(head.headers().firstValue("Access-Control-Allow-Origin")).contains("*");

            List<Event> first = watch.until(e -> e.name().equals("ready"));
            assertThat(first).hasSize(3);
            assertThat(hashes(first, "value")).containsExactlyInAnyOrder(a, b);
            assertThat(first.get(0).data().get("value").asText()).isIn(b64("a"), b64("b"));
            assertThat(first.get(0).data().get("ttlRemainingSeconds").asLong()).isBetween(1L, 3600L);
            assertThat(first.get(2).data().size()).isZero();
            assertThat(first).allSatisfy(e -> assertThat(e.id()).matches("[0-9a-f]{16}-[0-9]+"));

            String c = put(3, key, "c", 3600, "s");
            Event value = watch.next();
            assertThat(value.name()).isEqualTo("value");
            assertThat(value.data().get("valueHash").asText()).isEqualTo(c);
            assertThat(value.data().get("value").asText()).isEqualTo(b64("c"));
            assertThat(seq(value.id())).isGreaterThan(seq(first.get(2).id()));

            assertThat(remove(4, key, a, "s")).isEqualTo(204);
            Event removed = watch.next();
            assertThat(removed.name()).isEqualTo("removed");
            assertThat(removed.data().get("valueHash").asText()).isEqualTo(a);

            String brief = put(1, key, "brief", 2, "s");
            Event shortLived = watch.next();
            assertThat(shortLived.name()).isEqualTo("value");
            assertThat(shortLived.data().get("valueHash").asText()).isEqualTo(brief);
            Event expired = watch.next();
            assertThat(expired.name()).isEqualTo("expired");
            assertThat(expired.data().get("valueHash").asText()).isEqualTo(brief);
            assertThat(watch.drained()).isEmpty();
        }
    }

    @Test
    void theOwnerFilterPassesOnlyThatOwnersValues() throws Exception {
        Id key = Id.ofName("watch-owners");
        OwnerKey mine = OwnerKey.generate();
        OwnerKey theirs = OwnerKey.generate();
        putOwned(2, key, mine, 1, "mine-1");
        putOwned(2, key, theirs, 1, "theirs-1");
        put(3, key, "unowned", 3600, "s");
        URI uri = watchUri(1, key, "?owner=" + mine.publicKeyBase64Url());
        try (SseTestClient watch = SseTestClient.open(HTTP, uri, null)) {
            assertThat(watch.status()).isEqualTo(200);
            List<Event> first = watch.until(e -> e.name().equals("ready"));
            // An owned value's event names its slot (what its removed or expired names too), and its owner's fields.
            assertThat(first).hasSize(2);
            assertThat(first.get(0).data().get("owner").asText()).isEqualTo(mine.publicKeyBase64Url());
            assertThat(first.get(0).data().get("valueId").asText()).isEqualTo("1");
            assertThat(first.get(0).data().get("value").asText()).isEqualTo(b64("mine-1"));

            // Theirs first: had it passed the filter, it would be the next event.
            putOwned(4, key, theirs, 2, "theirs-2");
            put(4, key, "unowned-2", 3600, "s");
            putOwned(4, key, mine, 2, "mine-2");
            Event next = watch.next();
            assertThat(next.name()).isEqualTo("value");
            assertThat(next.data().get("owner").asText()).isEqualTo(mine.publicKeyBase64Url());
            assertThat(next.data().get("valueId").asText()).isEqualTo("2");
            assertThat(next.data().get("value").asText()).isEqualTo(b64("mine-2"));
        }
    }

    @Test
    void aClientThatComesBackWithLastEventIdGetsExactlyWhatItMissed() throws Exception {
        Id key = Id.ofName("watch-resume");
        String before = put(3, key, "before", 3600, "s");
        String lastId;
        try (SseTestClient watch = SseTestClient.open(HTTP, watchUri(2, key, ""), null)) {
            assertThat(watch.status()).isEqualTo(200);
            watch.until(e -> e.name().equals("ready"));
            String seen = put(4, key, "seen", 3600, "s");
            Event e = watch.next();
            assertThat(e.data().get("valueHash").asText()).isEqualTo(seen);
            lastId = e.id();
        }
        // The gateway keeps the key's watch a third of the lease (3 s) after its last client left.
        String missed1 = put(0, key, "missed-1", 3600, "s");
        String missed2 = put(1, key, "missed-2", 3600, "s");
        try (SseTestClient watch = SseTestClient.open(HTTP, watchUri(2, key, ""), lastId)) {
            assertThat(watch.status()).isEqualTo(200);
            List<Event> events = watch.until(e -> e.name().equals("ready"));
            // The two missed values may reach the gateway after the client is back: then they follow READY.
            while (hashes(events, "value").size() < 2) {
                events.add(watch.next());
            }
            assertThat(hashes(events, "value")).containsExactlyInAnyOrder(missed1, missed2);
            assertThat(hashes(events, "value")).doesNotContain(before);
            assertThat(events.stream().filter(e -> e.name().equals("value")))
                    .allSatisfy(e -> assertThat(seq(e.id())).isGreaterThan(seq(lastId)));
        }
    }

    @Test
    void aMalformedLastEventIdIs400() throws Exception {
        Id key = Id.ofName("watch-bad-id");
        for (String bad : List.of("nonsense", "12-3", "00000000000000zz-1", "0000000000000001-", "0000000000000001-x")) {
            try (SseTestClient watch = SseTestClient.open(HTTP, watchUri(3, key, ""), bad)) {
                assertThat(watch.status()).as(bad).isEqualTo(400);
                assertThat(watch.response().headers().firstValue("Content-Type")).contains("application/problem+json");
                assertThat(watch.problem().get("detail").asText()).contains("Last-Event-ID");
            }
        }
        try (SseTestClient watch = SseTestClient.open(HTTP, watchUri(3, key, "?lastEventId=zz-1"), null)) {
            assertThat(watch.status()).isEqualTo(400);
        }
        HttpResponse<String> preflight = HTTP.send(HttpRequest.newBuilder(watchUri(3, key, ""))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).contains("*");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse(""))
                .contains("Last-Event-ID");
    }

    @Test
    void aGatewayAtItsMostWatchesAnswers429() throws Exception {
        // Node 3 serves at most two watches (WatchLimits.watchesMax = 2); the third is refused before any 200.
        try (SseTestClient one = SseTestClient.open(HTTP, watchUri(3, Id.ofName("watch-bound-1"), ""), null);
             SseTestClient two = SseTestClient.open(HTTP, watchUri(3, Id.ofName("watch-bound-2"), ""), null)) {
            assertThat(one.status()).isEqualTo(200);
            assertThat(two.status()).isEqualTo(200);
            one.until(e -> e.name().equals("ready"));
            two.until(e -> e.name().equals("ready"));
            try (SseTestClient three = SseTestClient.open(HTTP, watchUri(3, Id.ofName("watch-bound-3"), ""),
                    null)) {
                assertThat(three.status()).isEqualTo(429);
                assertThat(three.response().headers().firstValue("Retry-After")).isPresent();
                JsonNode problem = three.problem();
                assertThat(problem.get("status").asInt()).isEqualTo(429);
                assertThat(problem.get("detail").asText()).contains("most watches");
            }
            one.close();
            // The closed stream's watch ends with its connection: a place is free again.
            await().atMost(WAIT).until(() -> {
                try (SseTestClient again = SseTestClient.open(HTTP, watchUri(3, Id.ofName("watch-bound-3"), ""),
                        null)) {
                    return again.status() == 200;
                }
            });
        }
    }

    @Test
    void aWatcherThatDoesNotReadIsDroppedWithItsConnection() throws Exception {
        Id key = Id.ofName("watch-slow");
        RattanNode gateway = cluster.node(4);
        try (Socket socket = new Socket()) {
            // A small window, so that the kernel holds little of what the client does not read.
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress("127.0.0.1", gateway.httpAddress().getPort()), 10_000);
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /v1/keys/" + key.toHex() + "/watch HTTP/1.1\r\nHost: test\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            readUntil(in, "event: ready\n");
            // Then it reads no more, while values of the largest size are put until the gateway gives it up.
            Random random = new Random(7);
            long refusedBefore = gateway.refusals(Port.HTTP, Refusal.SLOW_WATCHER);
            int puts = 0;
            while (gateway.refusals(Port.HTTP, Refusal.SLOW_WATCHER) == refusedBefore && puts < 400) {
                byte[] value = new byte[VALUE_BYTES_MAX];
                random.nextBytes(value);
                assertThat(putBytes(puts % 4, key, value)).isEqualTo(201);
                puts++;
                assertThat(gateway.httpPendingWriteBytesMax())
                        .isLessThanOrEqualTo(SseStream.PENDING_BYTES_MAX + 2L * VALUE_BYTES_MAX);
            }
            await().atMost(WAIT).until(() -> gateway.refusals(Port.HTTP, Refusal.SLOW_WATCHER) > refusedBefore);
            // The server closed the connection: what the kernel held drains, then the end of the stream.
            assertThat(drainToEnd(in)).isLessThan(SseStream.PENDING_BYTES_MAX + (64L << 20));
        }
    }

    @Test
    void aNodeThatStopsEndsItsStreamsWithEnded(@TempDir Path own) throws Exception {
        // Two nodes of their own (a node alone serves nothing: a put needs two in view), so that the other tests'
        // cluster keeps its five.
        try (LocalCluster two = LocalCluster.start(2, own, CONFIG)) {
            String base = "http://127.0.0.1:" + two.node(1).httpAddress().getPort();
            URI uri = URI.create(base + "/v1/keys/name:watch-stop/watch");
            try (SseTestClient watch = SseTestClient.open(HTTP, uri, null)) {
                assertThat(watch.status()).as(() -> watch.status() == 200 ? "" : problemText(watch)).isEqualTo(200);
                watch.until(e -> e.name().equals("ready"));
                two.node(1).close();
                Event ended = watch.next();
                assertThat(ended.name()).isEqualTo("ended");
                assertThat(ended.id()).isNull();
                assertThat(ended.data().get("status").asInt()).isEqualTo(503);
                assertThat(ended.data().get("detail").asText()).contains("stopping");
                await().atMost(WAIT).until(watch::finished);
            }
        }
    }

    private static String problemText(SseTestClient watch) {
        try {
            return watch.problem().toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void readUntil(InputStream in, String marker) throws Exception {
        StringBuilder seen = new StringBuilder();
        while (seen.indexOf(marker) < 0) {
            int b = in.read();
            assertThat(b).as("the stream up to %s, got %s", marker, seen).isNotNegative();
            seen.append((char) b);
        }
    }

    /** Bytes read until the end of the stream (a reset counts as its end too). */
    private static long drainToEnd(InputStream in) throws Exception {
        byte[] buf = new byte[64 << 10];
        long total = 0;
        try {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                total += n;
            }
        } catch (SocketException reset) {
            // Closed with unsent data: the end all the same.
        }
        return total;
    }

    private static List<String> hashes(List<Event> events, String name) {
        return events.stream().filter(e -> e.name().equals(name)).map(e -> e.data().get("valueHash").asText())
                .collect(Collectors.toList());
    }

    private static long seq(String id) {
        return Long.parseLong(id.substring(id.indexOf('-') + 1));
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static URI watchUri(int node, Id key, String query) {
        return URI.create(base(node) + "/v1/keys/" + key.toHex() + "/watch" + query);
    }

    private static String base(int node) {
        return "http://127.0.0.1:" + cluster.node(node).httpAddress().getPort();
    }

    /** Puts {@code text} with a secret through node {@code node}'s gateway; the value's hash. */
    private static String put(int node, Id key, String text, int ttlSeconds, String secret) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base(node) + "/v1/keys/" + key.toHex()
                        + "?ttl=" + ttlSeconds)).header("Rattan-Secret", secret).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(text)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return JSON.readTree(r.body()).get("valueHash").asText();
    }

    private static int putBytes(int node, Id key, byte[] value) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base(node) + "/v1/keys/" + key.toHex() + "?ttl=600"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofByteArray(value)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static int remove(int node, Id key, String valueHash, String secret) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base(node) + "/v1/keys/" + key.toHex() + "/" + valueHash))
                .header("Rattan-Secret", secret).timeout(Duration.ofSeconds(30)).DELETE().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** An owned put of value {@code valueId} at sequence 1. */
    private static void putOwned(int node, Id key, OwnerKey owner, long valueId, String text) throws Exception {
        long expiresAt = System.currentTimeMillis() / 1000 + 3600;
        OwnerStamp s = owner.sign(SignedOp.PUT, key, valueId, 1, expiresAt, Bytes.utf8(text).sha256());
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base(node) + "/v1/keys/" + key.toHex()))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(text));
        Map.of("Rattan-Owner", b64url(s.owner()), "Rattan-Value-Id", Long.toUnsignedString(s.valueId()),
                "Rattan-Seq", Long.toUnsignedString(s.seq()), "Rattan-Expires", Long.toString(s.expiresAtSeconds()),
                "Rattan-Signature", b64url(s.signature())).forEach(b::header);
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private static String b64url(Bytes b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
    }
}
