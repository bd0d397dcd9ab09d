package io.rattan.node.hosts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.node.process.NodeLaunch;
import io.rattan.node.process.NodePorts;
import io.rattan.node.store.RocksDbNativeLibrary;
import io.rattan.node.tls.ClusterCa;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node behind a port mapping ({@link TcpForwarder} on a third host): node A on host 0 advertises host 2's address,
 * where its peer port is mapped, while its own connections leave from host 0's. Without TLS, B refuses A's hello,
 * whose claimed address is not its connection's source, so A cannot join; under mutual TLS A's certificate proves
 * its id instead, B dials A back through the mapping, and the two serve each other's keys.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class NatTest {

    private static final NodePorts PORTS = new NodePorts("127.0.0.1", 4000, 4001, 4080);
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int A = 0;
    private static final int B = 1;
    private static final int ROUTER = 2;

    @TempDir
    Path dir;
    private NetnsHosts hosts;
    private Path nativeDir;
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        stopAll();
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void aNodeBehindAPortMappingJoinsOnlyUnderTls() throws Exception {
        Assumptions.assumeTrue(NetnsHosts.available(), "network namespaces cannot be made here (needs root)");
        hosts = NetnsHosts.create(3);
        nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        String mapped = hosts.address(ROUTER);
        processes.add(java(ROUTER, "forwarder", List.of(TcpForwarder.class.getName(), mapped, "4000",
                hosts.address(A), "4000")));

        node(B, List.of());
        awaitReady(B);
        Process a = node(A, List.of("--advertise", mapped, "--bootstrap", hosts.address(B) + ":4000"));
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> refusedHellos(B) > 0);
        assertThat(a.isAlive()).isTrue();
        assertThat(hosts.curl(A, "http://" + hosts.address(A) + ":4080/ready").status())
                .as("refused, A has not joined").isEqualTo(503);
        stopAll();

        ClusterCa ca = ClusterCa.create("nat-test", ClusterCa.VALIDITY_DEFAULT, new SecureRandom());
        ca.write(dir.resolve("ca"));
        for (int i : List.of(A, B)) {
            ca.certifyNode(dir.resolve("node-" + i), ClusterCa.VALIDITY_DEFAULT, List.of(), new SecureRandom());
        }
        List<String> tls = List.of("--tls-ca", dir.resolve("ca").resolve(ClusterCa.CERT_FILE).toString());
        processes.add(java(ROUTER, "forwarder", List.of(TcpForwarder.class.getName(), mapped, "4000",
                hosts.address(A), "4000")));
        node(B, tls);
        awaitReady(B);
        List<String> behindMapping = new ArrayList<>(tls);
        behindMapping.addAll(List.of("--advertise", mapped, "--bootstrap", hosts.address(B) + ":4000"));
        node(A, behindMapping);
        awaitReady(A);
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1))
                .until(() -> leafAddresses(B).contains(mapped + ":4000"));

        String key = "c1".repeat(20);
        assertThat(hosts.curl(B, "-X", "POST", "--data-binary", "across the mapping",
                "http://" + hosts.address(B) + ":4080/v1/keys/" + key + "?ttl=600").status()).isEqualTo(201);
        assertThat(hosts.curl(A, "http://" + hosts.address(A) + ":4080/v1/keys/" + key).body())
                .contains(Base64.getEncoder().encodeToString("across the mapping".getBytes()));
    }

    /** Node on host {@code i}: the wildcard bound, host i's address advertised unless {@code args} says otherwise. */
    private Process node(int i, List<String> args) throws IOException {
        List<String> all = new ArrayList<>(List.of("--bind", "0.0.0.0", "--replicas", "2", "--write-quorum", "2"));
        if (!args.contains("--advertise")) {
            all.addAll(List.of("--advertise", hosts.address(i)));
        }
        all.addAll(args);
        NodeLaunch launch = new NodeLaunch(javaBin(), jvmArgs(), System.getProperty("java.class.path"), PORTS,
                dir.resolve("node-" + i), all);
        Process p = start(i, "node-" + i, launch.command());
        processes.add(p);
        return p;
    }

    private Process java(int i, String log, List<String> mainAndArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaBin()));
        cmd.addAll(jvmArgs());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        cmd.addAll(mainAndArgs);
        return start(i, log, cmd);
    }

    private Process start(int i, String log, List<String> command) throws IOException {
        return new ProcessBuilder(hosts.in(i, command)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(log + ".log").toFile())).start();
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private List<String> jvmArgs() {
        return List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.library.path=" + nativeDir.toAbsolutePath());
    }

    private void stopAll() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        processes.clear();
    }

    private void awaitReady(int i) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() ->
                hosts.curl(i, "http://" + hosts.address(i) + ":4080/ready").output().endsWith("200"));
    }

    /** Hellos host {@code i}'s node refused as unable to hold (a claimed address not the connection's source). */
    private double refusedHellos(int i) throws IOException {
        return hosts.curl(i, "http://" + hosts.address(i) + ":4080/metrics").body().lines()
                .filter(l -> l.startsWith("rattan_peer_frames_refused_total") && l.contains("reason=\"bad_hello\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private List<String> leafAddresses(int i) throws IOException {
        List<String> out = new ArrayList<>();
        JSON.readTree(hosts.curl(i, "http://" + hosts.address(i) + ":4080/node").body()).get("leafSet")
                .forEach(leaf -> out.add(leaf.get("address").asText()));
        return out;
    }
}
