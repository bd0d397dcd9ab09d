package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proof 1: a real node process under put load is SIGKILLed at a random instant and restarted on its data dir; every
 * put it acknowledged must be in its own store afterwards, counted from the store itself through the admin listing
 * ({@code GET /admin/records}), never inferred from gets. Without {@code --fsync} the WAL reaches the OS before the
 * acknowledgement, which a killed process cannot undo; with it, the sync returned too.
 *
 * <p>CI runs {@value #CI_ROUNDS} rounds per setting; {@code -Drattan.crash.rounds=30} runs more (docs/durability.md),
 * {@code -Drattan.crash.seed=N} replays one run's kill instants.
 */
class CrashRecoveryProcessTest {

    private static final int CI_ROUNDS = 3;
    private static final int WRITERS = 4;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @ParameterizedTest(name = "fsync={0}")
    @ValueSource(booleans = {false, true})
    void everyAcknowledgedPutSurvivesSigkill(boolean fsync) throws Exception {
        int rounds = Integer.getInteger("rattan.crash.rounds", CI_ROUNDS);
        long seed = Long.getLong("rattan.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path dataDir = dir.resolve("node");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        NodeProcess node = startNode(dataDir, fsync);
        try {
            for (int round = 0; round < rounds; round++) {
                long killAfterMillis = 200 + random.nextInt(1500);
                int acked = loadThenKill(node, round, killAfterMillis, acknowledged);
                node = startNode(dataDir, fsync);
                Set<String> held = localRecords(node);
                Set<String> missing = new HashSet<>(acknowledged);
                missing.removeAll(held);
                System.out.printf("crash round %d (fsync=%s, seed %d): killed after %d ms, %d puts acknowledged in "
                        + "the round, %d in all, %d in the store after restart, %d missing%n", round, fsync, seed,
                        killAfterMillis, acked, acknowledged.size(), held.size(), missing.size());
                assertThat(acked).as("puts acknowledged before the kill").isPositive();
                assertThat(missing).as("acknowledged puts missing after SIGKILL (seed %d)", seed).isEmpty();
            }
        } finally {
            kill(node);
        }
    }

    /** Puts from several writers until {@code killAfterMillis} after the first acknowledgement, then SIGKILL. */
    private int loadThenKill(NodeProcess node, int round, long killAfterMillis, Set<String> acknowledged)
            throws InterruptedException {
        int httpPort = node.ports().http();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger acked = new AtomicInteger();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    String name = "r" + round + "-w" + writer + "-" + n;
                    String value = "value of " + name;
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(httpPort,
                                        "/v1/keys/name:" + name + "?ttl=3600"))
                                .POST(HttpRequest.BodyPublishers.ofString(value)).timeout(WAIT).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 201) {
                            acknowledged.add(entry(Id.ofName(name).toHex(), Bytes.utf8(value).sha256().toHex()));
                            acked.incrementAndGet();
                        }
                    } catch (IOException e) {
                        return; // the node died under this put: not acknowledged
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "crash-writer-" + w);
            t.start();
            writers.add(t);
        }
        await().atMost(WAIT).until(() -> acked.get() > 0);
        Thread.sleep(killAfterMillis);
        kill(node); // SIGKILL: no shutdown hook, no RocksDB close
        stop.set(true);
        for (Thread t : writers) {
            t.join(WAIT.toMillis());
        }
        return acked.get();
    }

    private Set<String> localRecords(NodeProcess node) throws IOException, InterruptedException {
        Set<String> held = new HashSet<>();
        for (NodeProcesses.Record r : NodeProcesses.records(http, node)) {
            held.add(r.entry());
        }
        return held;
    }

    private NodeProcess startNode(Path dataDir, boolean fsync) throws IOException {
        List<String> args = new ArrayList<>(List.of("--single-node"));
        if (fsync) {
            args.add("--fsync");
        }
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        return NodeProcesses.start(http, dataDir, dir.resolve("node.log"), nativeDir, "256m", args);
    }

    /** SIGKILL (no shutdown hook, no RocksDB close), and the wait for the process to be gone. */
    private static void kill(NodeProcess node) throws InterruptedException {
        node.sigkill();
        node.awaitExit(Duration.ofSeconds(30));
    }

    private static URI uri(int port, String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    private static String entry(String keyHex, String valueHashHex) {
        return keyHex + "/" + valueHashHex;
    }
}
