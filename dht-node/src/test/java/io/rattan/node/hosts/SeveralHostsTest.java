package io.rattan.node.hosts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.node.process.NodeLaunch;
import io.rattan.node.process.NodePorts;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
 * Three nodes on three "hosts", network namespaces of their own with an address each on one bridged subnet
 * ({@link NetnsHosts}): each binds the wildcard and advertises its host's address, as in a container or a pod. They
 * join through the first one's address, know each other by the advertised addresses, serve puts and gets across
 * hosts, and one is SIGKILLed and restarted on its data directory: it rejoins, a get through it finds what was
 * acknowledged meanwhile, in its own store too. Skipped where namespaces cannot be made (not root).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class SeveralHostsTest {

    private static final int HOSTS = 3;
    private static final NodePorts PORTS = new NodePorts("127.0.0.1", 4000, 4001, 4080);
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private NetnsHosts hosts;
    private final Process[] nodes = new Process[HOSTS];

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : nodes) {
            if (p != null) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void nodesOnThreeHostsBindingTheWildcardServeEachOtherAndSurviveAKill() throws Exception {
        Assumptions.assumeTrue(NetnsHosts.available(), "network namespaces cannot be made here (needs root)");
        hosts = NetnsHosts.create(HOSTS);
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        for (int i = 0; i < HOSTS; i++) {
            nodes[i] = start(i, nativeDir);
            awaitReady(i);
        }
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> leafAddresses(0).size() == HOSTS - 1
                && leafAddresses(2).size() == HOSTS - 1);
        assertThat(leafAddresses(0)).as("peers know each other by their advertised addresses")
                .containsExactlyInAnyOrder(hosts.address(1) + ":4000", hosts.address(2) + ":4000");

        String before = "a1".repeat(20);
        assertThat(put(0, before, "put on host 0")).isEqualTo(201);
        assertThat(get(2, before)).as("read on host 2").contains(b64("put on host 0"));

        nodes[1].destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        String during = "a2".repeat(20);
        // Until the others find host 1 dead a put routed through it times out (504), and a client tries again.
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1))
                .until(() -> put(2, during, "put while host 1 was down") == 201);
        assertThat(get(0, during)).contains(b64("put while host 1 was down"));

        nodes[1] = start(1, nativeDir);
        awaitReady(1);
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> leafAddresses(1).size() == HOSTS - 1);
        // The put made while host 1 was down reaches its own store (by repair, or a copy still being resent), seen
        // before any get through host 1, which would read the others and repair its copy itself. /admin/records
        // answers its own host only: the wildcard bind takes loopback too.
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1))
                .until(() -> curl(1, List.of("http://127.0.0.1:4080/admin/records")).output().contains(during));
        assertThat(get(1, during)).contains(b64("put while host 1 was down"));
        assertThat(get(1, before)).contains(b64("put on host 0"));
    }

    private Process start(int i, Path nativeDir) throws IOException {
        List<String> args = new ArrayList<>(List.of("--bind", "0.0.0.0", "--advertise", hosts.address(i),
                "--replicas", "3", "--write-quorum", "2"));
        if (i > 0) {
            args.addAll(List.of("--bootstrap", hosts.address(0) + ":" + PORTS.peer()));
        }
        NodeLaunch launch = new NodeLaunch(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-Djava.library.path=" + nativeDir.toAbsolutePath()),
                System.getProperty("java.class.path"), PORTS, dir.resolve("node-" + i), args);
        Path log = dir.resolve("node-" + i + ".log");
        return new ProcessBuilder(hosts.in(i, launch.command())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    private void awaitReady(int i) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            assertThat(nodes[i].isAlive()).as("node %d exited; its log is node-%d.log", i, i).isTrue();
            return curl(i, List.of("http://" + hosts.address(i) + ":4080/ready")).output().endsWith("200");
        });
    }

    /** The peer addresses in host {@code i}'s leaf set, from {@code GET /node}. */
    private List<String> leafAddresses(int i) throws IOException {
        String out = curl(i, List.of("http://" + hosts.address(i) + ":4080/node")).output();
        List<String> addresses = new ArrayList<>();
        JSON.readTree(out.substring(0, out.lastIndexOf('\n'))).get("leafSet")
                .forEach(leaf -> addresses.add(leaf.get("address").asText()));
        return addresses;
    }

    private int put(int i, String key, String value) throws IOException {
        String out = curl(i, List.of("-X", "POST", "--data-binary", value,
                "http://" + hosts.address(i) + ":4080/v1/keys/" + key + "?ttl=600")).output();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1).trim());
    }

    private String get(int i, String key) throws IOException {
        return curl(i, List.of("http://" + hosts.address(i) + ":4080/v1/keys/" + key)).output();
    }

    /** curl in host {@code i}'s namespace; the output ends with a line holding the HTTP status. */
    private NetnsHosts.Result curl(int i, List<String> args) throws IOException {
        return hosts.curl(i, args.toArray(String[]::new));
    }

    private static String b64(String s) {
        return Base64.getEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
