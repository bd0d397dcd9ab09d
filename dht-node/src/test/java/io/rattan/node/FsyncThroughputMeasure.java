package io.rattan.node;

import io.rattan.node.limits.Limits;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: the measurement behind docs/durability.md's table. Put throughput of one real node (HTTP puts from
 * {@value #WRITERS} concurrent writers, W = 1 in a one-node overlay) with and without {@code --fsync}, side by side,
 * alternating, so that the machine's load hits both alike. Prints figures, asserts nothing. Run with
 * {@code -Drattan.measure=true}.
 */
@EnabledIfSystemProperty(named = "rattan.measure", matches = "true")
class FsyncThroughputMeasure {

    private static final int WRITERS = 16;
    private static final Duration SPELL = Duration.ofSeconds(Long.getLong("rattan.measure.seconds", 10));
    private static final int SPELLS = Integer.getInteger("rattan.measure.spells", 3);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void putThroughputWithAndWithoutFsync() throws Exception {
        for (int spell = 0; spell < SPELLS; spell++) {
            for (boolean fsync : new boolean[] {false, true}) {
                // The client limits off: all writers share one address, and its rate limit (1,024 requests a
                // second) capped both settings at the same figure on a quiet machine, measuring the limit, not the disk.
                NodeOptions options = NodeOptions.singleNode(dir.resolve("s" + spell + "-" + fsync))
                        .withStorage(new RocksDbStore.Settings(fsync, 0))
                        .withLimits(Limits.defaults().withClientRequestsPerSecond(Limits.OFF)
                                .withClientStorageBytes(Limits.OFF));
                try (RattanNode node = RattanNode.start(options)) {
                    while (!node.isJoined()) {
                        Thread.sleep(50);
                    }
                    long puts = load(node.httpAddress().getPort(), spell + "-" + fsync);
                    double perSecond = puts / (double) SPELL.toSeconds();
                    long syncs = node.store().walSyncs();
                    System.out.printf("fsync=%-5s spell %d: %d puts in %d s = %.0f puts/s, %d WAL syncs "
                            + "(%.1f puts per sync)%n", fsync, spell, puts, SPELL.toSeconds(), perSecond, syncs,
                            syncs == 0 ? 0.0 : puts / (double) syncs);
                }
            }
        }
    }

    private long load(int port, String tag) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ok = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    try {
                        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                        + "/v1/keys/name:" + tag + "-" + writer + "-" + n))
                                .POST(HttpRequest.BodyPublishers.ofString("v".repeat(100) + n)).build(),
                                HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 201) {
                            ok.incrementAndGet();
                        }
                    } catch (IOException | InterruptedException e) {
                        return;
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        Thread.sleep(SPELL.toMillis());
        stop.set(true);
        long puts = ok.get();
        for (Thread t : threads) {
            t.join();
        }
        return puts;
    }
}
