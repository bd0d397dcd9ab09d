package io.rattan.node.permanent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.OwnerKey;
import io.rattan.client.PermanentValue;
import io.rattan.client.RattanClient;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
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
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import picocli.CommandLine;

/**
 * Permanent values on real nodes (Netty, RocksDB, one JVM), with a TTL of 10 s: a value a gateway keeps
 * ({@code ?permanent=true}) and values a Java client keeps ({@code putPermanent}, unowned and owned) are there at
 * every second of three TTLs while a value put with the same TTL expires; a gateway halted past a TTL's end puts its value back when it
 * restarts on its data directory; a client's value outlives the loss of the gateway it first used; a remove through
 * another gateway ends a gateway's keeping at its next put, one through the same gateway at once.
 *
 * <p>It mostly waits for TTLs to run out, so it runs beside the module's other test classes
 * (junit-platform.properties).
 */
@Execution(ExecutionMode.CONCURRENT)
class PermanentValuesTest {

    private static final int TTL = 10;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    @TempDir
    Path dir;
    private LocalCluster cluster;
    private RattanClient keeper;
    private RattanClient reader;

    @AfterEach
    void stop() {
        if (keeper != null) {
            keeper.close();
        }
        if (reader != null) {
            reader.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void permanentValuesOutliveThreeTtlsAndTheLossOfAGateway() throws Exception {
        cluster = LocalCluster.start(5, dir, CONFIG);
        reader = client(0);
        Id kept = Id.ofName("kept-by-gateway-1");
        Id plain = Id.ofName("not-permanent");
        Id restarted = Id.ofName("kept-by-gateway-3");
        Id removedElsewhere = Id.ofName("removed-through-gateway-0");
        Id byClient = Id.ofName("kept-by-the-client");
        Id ownedByClient = Id.ofName("owned-kept-by-the-client");
        refusals(kept);

        assertThat(post(1, kept, "?permanent=true&ttl=" + TTL, "s1", "alpha").body()).contains("\"permanent\":true");
        assertThat(post(1, plain, "?ttl=" + TTL, null, "beta").statusCode()).isEqualTo(201);
        assertThat(post(1, removedElsewhere, "?permanent=true&ttl=" + TTL, "s2", "zeta").statusCode()).isEqualTo(201);
        // Removed through another gateway: node 1 learns it only when its next put meets the tombstone.
        HttpResponse<String> removed = delete(0, removedElsewhere, "zeta", "s2");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(204);
        assertThat(post(3, restarted, "?permanent=true&ttl=" + TTL, "s3", "gamma").statusCode()).isEqualTo(201);
        halt(3);

        // Three TTLs count from the client's first put: every value below is then checked for at least as long.
        long start = System.nanoTime();
        keeper = RattanClient.builder().gateway(binary(2)).gateway(binary(4)).build();
        PermanentValue delta = keeper.putPermanent(byClient, utf8("delta"), Duration.ofSeconds(TTL), utf8("s4"))
                .join();
        PermanentValue epsilon = keeper.putPermanentOwned(ownedByClient, utf8("epsilon"), OwnerKey.generate(), 1, 1,
                Duration.ofSeconds(TTL)).join();
        halt(2);
        // Every second until three TTLs have passed, the kept values are there (a get that fails proves nothing).
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger samples = new AtomicInteger();
        List<String> misses = new CopyOnWriteArrayList<>();
        Set<Id> missedLast = ConcurrentHashMap.newKeySet();
        sampler.scheduleWithFixedDelay(() -> sample(samples, misses, Map.of(kept, "alpha", byClient, "delta",
                ownedByClient, "epsilon"), missedLast), 0, 1, TimeUnit.SECONDS);
        try {
            // The value put without ?permanent and the one whose gateway is down expire: TTLs do end here.
            await().atMost(WAIT).ignoreExceptions()
                    .until(() -> values(plain).isEmpty() && values(restarted).isEmpty());
            cluster.restart(3);
            await().atMost(WAIT).ignoreExceptions().until(() -> values(restarted).equals(List.of("gamma")));
            long threeTtls = Duration.ofSeconds(3L * TTL + 2).toNanos() - (System.nanoTime() - start);
            Thread.sleep(Math.max(0, threeTtls / 1_000_000));
        } finally {
            sampler.shutdownNow();
            sampler.awaitTermination(30, TimeUnit.SECONDS);
        }
        assertThat(misses).isEmpty();
        assertThat(samples.get()).isGreaterThanOrEqualTo(3 * TTL / 2);
        assertThat(values(restarted)).containsExactly("gamma");
        assertThat(values(removedElsewhere)).isEmpty();
        // A put every half TTL, counted from each put's start: 7 in 32 s; 5 leaves room for a slow machine.
        assertThat(delta.puts()).isGreaterThanOrEqualTo(5);
        assertThat(epsilon.puts()).isGreaterThanOrEqualTo(5);
        // Node 1 still keeps "alpha" only: its put of "zeta" met the tombstone and dropped it. It put "alpha" again
        // every half TTL (6 times in 32 s).
        await().atMost(WAIT).until(() -> keptBy(1) == 1);
        assertThat(metric(1, "rattan_gateway_permanent_puts_total{outcome=\"ok\"}")).isGreaterThanOrEqualTo(4);

        // The same bytes with another secret are that put's own value (protocol 16), stored but not kept a second
        // time; that secret removes only its own copy, and ends nothing kept.
        HttpResponse<String> again = post(3, restarted, "?permanent=true&ttl=" + TTL, "other", "gamma");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(delete(3, restarted, "gamma", "other").statusCode()).isEqualTo(204);
        assertThat(values(restarted)).containsExactly("gamma");
        // A remove through the gateway that keeps the value ends the keeping at once.
        assertThat(keptBy(3)).isEqualTo(1);
        HttpResponse<String> removedHere = delete(3, restarted, "gamma", "s3");
        assertThat(removedHere.statusCode()).as(removedHere.body()).isEqualTo(204);
        assertThat(keptBy(3)).isZero();

        // A client's value removed elsewhere: its next put meets the tombstone, and the handle says so.
        assertThat(delete(0, byClient, "delta", "s4").statusCode()).isEqualTo(204);
        await().atMost(WAIT).until(() -> delta.stoppedBy().isPresent());
        assertThat(delta.stoppedBy().get().status()).isEqualTo(Status.FORBIDDEN);
        assertThat(delta.isKeptAlive()).isFalse();
        epsilon.close();
        assertThat(epsilon.isKeptAlive()).isFalse();
    }

    /**
     * Halts node {@code i} and waits until every running node has declared it dead. Until then a request whose key the
     * halted node was root of waits on it at its gateway, for longer than a client's attempt (docs/durability.md): the
     * waits here are for TTLs, not for failure detection.
     */
    private void halt(int i) {
        Contact halted = cluster.node(i).contact();
        cluster.halt(i);
        await().atMost(WAIT).until(() -> cluster.liveNodes().stream()
                .noneMatch(n -> n.status().leafSet().contains(halted)));
    }

    /**
     * One sample of the kept values, read by quorum. A value missing from two samples in a row is a miss: one alone
     * may be a replica that joined the key's set while nodes were halted and has not been repaired yet.
     */
    private void sample(AtomicInteger samples, List<String> misses, Map<Id, String> expected, Set<Id> missedLast) {
        for (Map.Entry<Id, String> e : expected.entrySet()) {
            List<String> held;
            try {
                held = reader.getSync(e.getKey(), GetOptions.defaults().withQuorum(0)).values().stream()
                        .map(GetResult.Value::utf8).toList();
            } catch (RuntimeException failed) {
                continue;
            }
            boolean there = held.equals(List.of(e.getValue()));
            if (!there && !missedLast.add(e.getKey())) {
                misses.add(e.getValue() + " missing at two samples in a row, the second after " + samples.get()
                        + " s: " + held);
            } else if (there) {
                missedLast.remove(e.getKey());
            }
        }
        samples.incrementAndGet();
    }

    /** {@code rattan put --permanent} keeps a value from the process; one it could not keep is a usage error. */
    @Test
    void theCommandLineRefusesAPermanentPutItCouldNotKeep() {
        CommandLine cl = RattanCli.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("put", "-g", "127.0.0.1:9", "name:x", "v", "--permanent", "--ttl", "5")).isEqualTo(2);
        assertThat(err.toString()).contains("--permanent needs --ttl of at least 10 s");
        assertThat(cl.execute("put", "-g", "127.0.0.1:9", "name:x", "v", "--permanent", "--owner-key", "k.pem",
                "--value-id", "1", "--seq", "2", "--if-seq", "1")).isEqualTo(2);
        assertThat(err.toString()).contains("no --if-seq or --if-absent");
    }

    /** What a permanent put may not be: without a secret, with a TTL too short, owned, or a flag not a boolean. */
    private void refusals(Id key) throws Exception {
        assertThat(post(1, key, "?permanent=true&ttl=60", null, "x").statusCode()).isEqualTo(400);
        assertThat(post(1, key, "?permanent=true&ttl=5", "s", "x").statusCode()).isEqualTo(400);
        assertThat(post(1, key, "?permanent=yes", "s", "x").statusCode()).isEqualTo(400);
        OwnerKey owner = OwnerKey.generate();
        long expires = System.currentTimeMillis() / 1000 + 600;
        OwnerStamp s = owner.sign(SignedOp.PUT, key, 1, 1, expires, Bytes.utf8("x").sha256());
        HttpRequest owned = HttpRequest.newBuilder(uri(1, key, "?permanent=true"))
                .header("Rattan-Owner", b64(s.owner())).header("Rattan-Value-Id", "1").header("Rattan-Seq", "1")
                .header("Rattan-Expires", Long.toString(expires)).header("Rattan-Signature", b64(s.signature()))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build();
        HttpResponse<String> r = http.send(owned, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("only its owner can keep it alive");
        assertThat(values(key)).isEmpty();
    }

    private List<String> values(Id key) {
        return reader.getSync(key).values().stream().map(GetResult.Value::utf8).toList();
    }

    /** The values node {@code i}'s gateway keeps alive, from its metrics. */
    private int keptBy(int i) throws Exception {
        return (int) metric(i, "rattan_gateway_permanent_values");
    }

    /** A sample of node {@code i}'s metrics, by its exact name and labels as Prometheus prints them. */
    private double metric(int i, String series) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + cluster.node(i).httpAddress().getPort() + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(r.body());
        assertThat(m.find()).as(series + " is exported").isTrue();
        return Double.parseDouble(m.group(1));
    }

    private HttpResponse<String> post(int node, Id key, String query, String secret, String value) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(node, key, query)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8));
        if (secret != null) {
            b.header("Rattan-Secret", secret);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> delete(int node, Id key, String value, String secret) throws Exception {
        URI uri = URI.create(uri(node, key, "") + "/" + Bytes.utf8(value).sha256().toHex());
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).header("Rattan-Secret", secret)
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(int node, Id key, String query) {
        return URI.create("http://127.0.0.1:" + cluster.node(node).httpAddress().getPort() + "/v1/keys/" + key.toHex()
                + query);
    }

    private RattanClient client(int node) {
        return RattanClient.builder().gateway(binary(node)).build();
    }

    private Address binary(int node) {
        return new Address("127.0.0.1", cluster.node(node).gatewayAddress().getPort());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String b64(Bytes b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
    }
}
