package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.Watch;
import io.rattan.client.WatchListener;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watch across SIGKILLs of real node processes (issue 37): while values are put, one of the key's replicas is
 * killed, then the watch's own gateway; every put acknowledged after READY must reach the listener exactly once (the
 * replicas that stored it push it; the client moves to another gateway and diffs its snapshot), and the watch must
 * not end.
 */
class WatchProcessTest {

    private static final int NODES = 5;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Id KEY = Id.ofName("watched across kills");

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<NodeProcess> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        NodeProcesses.killAll(nodes);
    }

    @Test
    void everyPutAcknowledgedAfterReadyArrivesOnceAcrossAReplicaKillAndAGatewayKill() throws Exception {
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        NodeProcesses.startCluster(http, dir, nativeDir, "160m", NODES,
                List.of("--watch-lease-ms", "6000", "--client-rate", "1000000"), nodes);
        Map<String, NodeProcess> byGateway = new HashMap<>();
        Map<NodeProcess, Id> ids = new HashMap<>();
        List<Address> gateways = new ArrayList<>();
        for (NodeProcess n : nodes) {
            Address g = new Address("127.0.0.1", n.ports().gateway());
            gateways.add(g);
            byGateway.put(g.host() + ":" + g.port(), n);
            ids.put(n, NodeProcesses.id(http, n));
        }
        Map<String, AtomicInteger> heard = new ConcurrentHashMap<>();
        AtomicInteger ready = new AtomicInteger();
        List<String> ends = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (RattanClient watcher = RattanClient.builder().gateways(gateways).loadRing(false).build();
             RattanClient writer = RattanClient.builder().gateways(gateways).attemptTimeout(Duration.ofSeconds(3))
                     .totalTimeout(Duration.ofSeconds(10)).build();
             Watch watch = watcher.watch(KEY, new WatchListener() {
                 @Override
                 public void onValue(GetResult.Value value) {
                     heard.computeIfAbsent(new String(value.bytes(), StandardCharsets.UTF_8),
                             v -> new AtomicInteger()).incrementAndGet();
                 }

                 @Override
                 public void onReady() {
                     ready.incrementAndGet();
                 }

                 @Override
                 public void onEnded(RattanException cause) {
                     ends.add(String.valueOf(cause));
                 }
             })) {
            await().atMost(WAIT).until(() -> ready.get() == 1);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            put(writer, "before", 10, acknowledged);

            NodeProcess gatewayNode = byGateway.get(watch.gateway());
            List<NodeProcess> replicas = new ArrayList<>(nodes);
            replicas.sort(Comparator.comparing(n -> ids.get(n).distanceTo(KEY)));
            NodeProcess replica = replicas.subList(0, 4).stream().filter(n -> n != gatewayNode).findFirst()
                    .orElseThrow();
            replica.sigkill();
            replica.awaitExit(Duration.ofSeconds(30));
            put(writer, "after a replica died", 15, acknowledged);

            String was = watch.gateway();
            byGateway.get(was).sigkill();
            byGateway.get(was).awaitExit(Duration.ofSeconds(30));
            put(writer, "after the gateway died", 15, acknowledged);

            assertThat(acknowledged).as("puts acknowledged").hasSizeGreaterThanOrEqualTo(25);
            await().atMost(WAIT).untilAsserted(() -> assertThat(heard.keySet()).containsAll(acknowledged));
            assertThat(heard.values()).as("each value heard once").allMatch(n -> n.get() == 1);
            assertThat(watch.gateway()).as("the watch moved to another gateway").isNotEqualTo(was);
            assertThat(ends).as("the watch never ended").isEmpty();
            assertThat(ready.get()).isEqualTo(1);
        }
    }

    /** {@code count} puts, one at a time (a put the dying node took may fail, and is then not acknowledged). */
    private static void put(RattanClient writer, String phase, int count, Set<String> acknowledged) {
        for (int i = 0; i < count; i++) {
            String value = phase + " " + i;
            try {
                writer.put(KEY, value.getBytes(StandardCharsets.UTF_8), Duration.ofHours(1)).get(20, TimeUnit.SECONDS);
                acknowledged.add(value);
            } catch (Exception e) {
                // Not acknowledged: the rule does not cover it.
            }
        }
    }
}
