package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.id.NodeKey;
import io.rattan.node.identity.NodeIdFile;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.store.RocksDbNativeLibrary;
import io.rattan.node.tls.CertificatePem;
import io.rattan.node.tls.ClusterCa;
import io.rattan.node.tls.TlsFiles;
import io.rattan.sim.experiment.TableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rattan cluster} against real node processes, checked through /proc rather than through the tool. */
class ClusterProcessTest {

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() {
        TestClusters.cleanUp(dir);
    }

    @Test
    void startRunsThreeNodeProcessesAndStopLeavesNone() throws IOException {
        int base = TestClusters.start(dir, 3);

        List<Long> pids = TestClusters.pidsNaming(dir);
        assertThat(pids).hasSize(3).doesNotContain(ProcessHandle.current().pid());
        assertThat(new HashSet<>(pids)).hasSize(3);
        for (int i = 0; i < 3; i++) {
            long fromFile = Long.parseLong(Files.readString(dir.resolve("node-" + i).resolve("pid")).trim());
            assertThat(pids).contains(fromFile);
            // RocksDB's library is mapped from the one extracted copy, not inflated into /tmp per process.
            assertThat(Files.readString(Path.of("/proc", Long.toString(fromFile), "maps")))
                    .contains(RocksDbNativeLibrary.DIR_SUFFIX + "/librocksdbjni").doesNotContain("/tmp/librocksdbjni");
        }
        assertThat(Files.readAllLines(dir.resolve("gateways.txt"), StandardCharsets.UTF_8)).containsExactly(
                "127.0.0.1:" + (base + 1) + " 127.0.0.1:" + (base + 2),
                "127.0.0.1:" + (base + 4) + " 127.0.0.1:" + (base + 5),
                "127.0.0.1:" + (base + 7) + " 127.0.0.1:" + (base + 8));

        TestClusters.Result stop = TestClusters.run("cluster", "stop", "--dir", dir.toString());

        assertThat(stop.exitCode()).as(stop.output()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(TestClusters.pidsNaming(dir)).isEmpty());
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid " + pid).isFalse();
        }
    }

    @Test
    void keysAreGivenBeforeTheFirstStartAndCertifiedUnderTlsAndANodeWithAnotherKeyIsAnError(@TempDir Path work) throws Exception {
        NodeKey first = NodeKey.draw(new SplittableRandom(1));
        NodeKey second = NodeKey.draw(new SplittableRandom(2));
        Path keys = work.resolve("keys.txt");
        TableFiles.writeKeys(List.of(first, second), keys);
        // Node 1 already has a key of its own: its data would be orphaned, so nothing starts.
        Path node1 = dir.resolve("node-1").resolve("data");
        Files.createDirectories(node1);
        NodeKeyFile.write(node1.resolve(NodeKeyFile.FILE_NAME), NodeKey.draw(new SplittableRandom(3)));
        TestClusters.Result refused = TestClusters.run("cluster", "start", "--nodes", "2", "--dir", dir.toString(),
                "--keys", keys.toString(), "--node-jar", TestClusters.nodeJar().toString());
        assertThat(refused.exitCode()).as(refused.output()).isNotZero();
        assertThat(refused.output()).contains("node 1 of", "already has the key of id");
        assertThat(TestClusters.pidsNaming(dir)).isEmpty();

        Files.delete(node1.resolve(NodeKeyFile.FILE_NAME));
        // Under mutual TLS (each node's certificate is of its given key): start waits until node 1 has joined.
        TestClusters.start(dir, 2, "--keys", keys.toString(), "--tls");
        Path node0 = dir.resolve("node-0").resolve("data");
        assertThat(NodeIdFile.read(node0.resolve(NodeIdFile.FILE_NAME))).contains(first.id());
        assertThat(NodeIdFile.read(node1.resolve(NodeIdFile.FILE_NAME))).contains(second.id());
        for (Path data : List.of(node0, node1)) {
            X509Certificate cert = CertificatePem.read(data.resolve(TlsFiles.NODE_CERT)).get(0);
            cert.verify(CertificatePem.read(dir.resolve(ProcessCluster.CA_DIR).resolve(ClusterCa.CERT_FILE)).get(0)
                    .getPublicKey());
        }
        assertThat(Files.readString(dir.resolve(ProcessCluster.SPEC_FILE))).contains("--tls-ca");
    }

    @Test
    void slowPausesTheChosenNodeAndResumesItWhenInterrupted() throws Exception {
        TestClusters.start(dir, 2);
        long pid1 = Long.parseLong(Files.readString(dir.resolve("node-1").resolve("pid")).trim());
        AtomicReference<TestClusters.Result> result = new AtomicReference<>();
        // Paused nearly all the time, for far longer than the test: only the interrupt can end it.
        Thread slow = new Thread(() -> result.set(TestClusters.run("cluster", "slow", "--dir", dir.toString(),
                "--nodes", "1", "--fraction", "0.5", "--stop-ms", "900", "--period-ms", "1000", "--duration", "1h")));
        slow.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> processState(pid1) == 'T');
        } finally {
            slow.interrupt();
            slow.join(30_000);
        }

        assertThat(slow.isAlive()).isFalse();
        assertThat(result.get().exitCode()).as(result.get().output()).isZero();
        assertThat(processState(pid1)).isNotEqualTo('T');
    }

    /** The one-letter state of /proc/PID/status ('T' stopped, 'S' sleeping, ...). */
    private static char processState(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("State:")) {
                return line.substring("State:".length()).trim().charAt(0);
            }
        }
        throw new IOException("no State in /proc/" + pid + "/status");
    }
}
