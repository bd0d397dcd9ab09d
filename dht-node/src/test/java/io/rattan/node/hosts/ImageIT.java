package io.rattan.node.hosts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's OCI image ({@code target/jib-image.tar}, built by {@code package}) runs: its layers unpacked into a root
 * filesystem, its entrypoint run as its non-root user in a mount and PID namespace of its own (a container, short of
 * cgroups) inside a network namespace per host ({@link NetnsHosts}), as docs/deploy.md's private cluster: a CA and a
 * certificate per node made by the image's own {@code rattan certs}, mutual TLS between the nodes, and the
 * Kubernetes manifests' way of forming the cluster (a bootstrap name that lists the nodes started so far, as a
 * headless Service's does, and {@code --founder-host}). Puts and gets cross hosts; SIGTERM makes a node leave and
 * exit 0.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ImageIT {

    private static final int HOSTS = 3;
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PEERS_NAME = "rattan-peers";
    private static final int ADMIN_PORT = 4090;

    @TempDir
    Path dir;
    private NetnsHosts hosts;
    private OciImage image;
    private final Process[] nodes = new Process[HOSTS];

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : nodes) {
            if (p != null) {
                stop(p);
            }
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void theImageRunsAPrivateClusterOfThreeHostsAsItsNonRootUser() throws Exception {
        Path tarball = Path.of(System.getProperty("rattan.image.tarball", "target/jib-image.tar"));
        assertThat(tarball).as("package builds the image tarball").exists();
        Assumptions.assumeTrue(NetnsHosts.available(), "namespaces cannot be made here (needs root)");
        image = OciImage.unpack(tarball, dir.resolve("image"));
        assertThat(image.user()).isEqualTo("10001:10001");
        assertThat(image.entrypoint()).startsWith("/opt/jre/bin/java");
        assertThat(image.args()).containsExactly("node");
        for (String mountPoint : List.of("proc", "dev", "certs")) {
            Files.createDirectories(image.rootfs().resolve(mountPoint));
        }
        Files.writeString(image.rootfs().resolve("etc/hosts"), "");
        hosts = NetnsHosts.create(HOSTS);

        // As the manifests split the CA: its key for the commands that certify, its certificate alone for the nodes.
        Path certs = ownedDir("certs");
        assertThat(once(0, certs, ownedDir("data-0"), "certs", "ca", "--dir", "/certs/ca")).isZero();
        for (int i = 0; i < HOSTS; i++) {
            Path data = i == 0 ? dir.resolve("data-0") : ownedDir("data-" + i);
            assertThat(once(i, certs, data, "certs", "node", "--ca", "/certs/ca", "--data-dir", "/data")).isZero();
        }
        Path caCert = Files.createDirectories(dir.resolve("ca-cert"));
        Files.copy(certs.resolve("ca").resolve("ca.crt"), caCert.resolve("ca.crt"));
        for (int i = 0; i < HOSTS; i++) {
            nodes[i] = node(i, caCert);
            awaitReady(i);
        }
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1))
                .until(() -> leafCount(0) == HOSTS - 1 && leafCount(2) == HOSTS - 1);

        String key = "b1".repeat(20);
        assertThat(put(0, key, "from the image")).isEqualTo(201);
        assertThat(get(2, key)).contains(Base64.getEncoder().encodeToString("from the image".getBytes()));
        assertThat(curl(1, "http://" + hosts.address(1) + ":4080/health").status()).isEqualTo(200);
        assertThat(curl(1, "http://" + hosts.address(1) + ":4080/node").status()).as("on the admin port only")
                .isEqualTo(404);
        assertThat(Files.getAttribute(dir.resolve("data-1").resolve("node.key"), "unix:uid"))
                .as("the node runs as the image's user").isEqualTo(10001);

        // The container's process is unshare; its child, the node (PID 1 of its namespace), is the one to signal.
        nodes[2].toHandle().descendants().forEach(ProcessHandle::destroy);
        assertThat(nodes[2].waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(nodes[2].exitValue()).as("SIGTERM: a graceful leave, exit 0; see node-2.log").isZero();
    }

    /** A directory the image's user may write, mounted into its containers. */
    private Path ownedDir(String name) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        assertThat(NetnsHosts.run(List.of("chown", "10001:10001", d.toString())).exit()).isZero();
        return d;
    }

    /** Runs the image with {@code args} (a command of {@code rattan}) to its end, on host {@code i}. */
    private int once(int i, Path certs, Path data, String... args) throws Exception {
        Process p = container(i, certs, data, Map.of(), "once-" + i, List.of(args));
        try {
            assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("rattan %s ended; see once-%d.log", args[0], i).isTrue();
            return p.exitValue();
        } finally {
            stop(p);
        }
    }

    /** Kills a container: its command first, which runs as another user, so unshare's death does not end it. */
    private static void stop(Process p) throws InterruptedException {
        p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** Node {@code i}: settings as the Kubernetes manifests give them, and mutual TLS. */
    private Process node(int i, Path certs) throws IOException {
        StringBuilder listed = new StringBuilder();
        for (int j = 0; j <= i; j++) {
            listed.append(hosts.address(j)).append(' ').append(PEERS_NAME).append('\n');
        }
        Files.writeString(dir.resolve("hosts-" + i), listed);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOSTNAME", "rattan-" + i);
        env.put("RATTAN_ADVERTISE", hosts.address(i));
        env.put("RATTAN_BOOTSTRAP", PEERS_NAME + ":4000");
        env.put("RATTAN_FOUNDER_HOST", "rattan-0");
        env.put("RATTAN_TLS_CA", "/certs/ca.crt");
        env.put("RATTAN_FSYNC", "true");
        env.put("RATTAN_HTTP_SERVES", "metrics");
        env.put("RATTAN_ADMIN_PORT", Integer.toString(ADMIN_PORT));
        env.put("ROCKSDB_SHAREDLIB_DIR", "/tmp");
        return container(i, certs, dir.resolve("data-" + i), env, "node-" + i, image.args());
    }

    /**
     * The image's entrypoint with {@code args} in host {@code i}'s network namespace, in new mount and PID
     * namespaces where the image's root is read-only (as the manifests have it) and /proc, /dev, a /tmp of its own,
     * {@code data} at /data, {@code certs} at /certs and this host's hosts file are mounted, chrooted into the root as
     * the image's user; output to {@code log}.log.
     */
    private Process container(int i, Path certs, Path data, Map<String, String> env, String log, List<String> args)
            throws IOException {
        Path root = image.rootfs().toAbsolutePath();
        Path hostsFile = dir.resolve("hosts-" + i);
        if (!Files.exists(hostsFile)) {
            Files.writeString(hostsFile, "");
        }
        String mounts = "mount --bind " + root + " " + root + " && mount -o remount,bind,ro " + root
                + " && mount -t proc proc " + root + "/proc && mount --rbind /dev " + root + "/dev"
                + " && mount -t tmpfs -o mode=1777 tmpfs " + root + "/tmp"
                + " && mount --bind " + data.toAbsolutePath() + " " + root + "/data"
                + " && mount --bind " + certs.toAbsolutePath() + " " + root + "/certs"
                + " && mount --bind " + hostsFile.toAbsolutePath() + " " + root + "/etc/hosts"
                + " && exec chroot --userspec=" + image.user() + " " + root + " \"$@\"";
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork",
                "--kill-child=SIGTERM", "sh", "-c", mounts, "sh"));
        command.addAll(image.entrypoint());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(hosts.in(i, command)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(log + ".log").toFile()));
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        pb.environment().putAll(image.env());
        pb.environment().put("JAVA_TOOL_OPTIONS", "-Xmx192m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        pb.environment().putAll(env);
        return pb.start();
    }

    private void awaitReady(int i) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            assertThat(nodes[i].isAlive()).as("node %d exited; its log is node-%d.log", i, i).isTrue();
            return curl(i, "http://" + hosts.address(i) + ":4080/ready").output().endsWith("200");
        });
    }

    /** Host {@code i}'s leaf set's size, from {@code /node} on its admin port, which listens on its loopback. */
    private int leafCount(int i) throws IOException {
        String out = curl(i, "http://127.0.0.1:" + ADMIN_PORT + "/node").output();
        return JSON.readTree(out.substring(0, out.lastIndexOf('\n'))).get("leafSet").size();
    }

    private int put(int i, String key, String value) throws IOException {
        String out = curl(i, "-X", "POST", "--data-binary", value,
                "http://" + hosts.address(i) + ":4080/v1/keys/" + key + "?ttl=600").output();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1).trim());
    }

    private String get(int i, String key) throws IOException {
        return curl(i, "http://" + hosts.address(i) + ":4080/v1/keys/" + key).output();
    }

    private NetnsHosts.Result curl(int i, String... args) throws IOException {
        return hosts.curl(i, args);
    }
}
