package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rattan namespaces} (list, create, retire) and {@code --ns} on put and get, against one real node: a node
 * alone holds every definition it makes at once, so nothing here waits for one to spread.
 */
class NamespacesCommandTest {

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static String http;
    private static String gateway;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(1, dir, NodeConfig.defaults().withReplicas(1, 1));
        http = "127.0.0.1:" + cluster.node(0).httpAddress().getPort();
        gateway = "127.0.0.1:" + cluster.node(0).gatewayAddress().getPort();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void createListPutGetInANamespaceAndRetireIt() {
        CliRun created = CliRun.of("namespaces", "--http", http, "create", "cli-ns", "--replicas", "1",
                "--storage", "memory", "--value-bytes-max", "32");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).contains("cli-ns", "k=1", "W=1", "memory", "valueMax=32B");
        assertThat(CliRun.of("namespaces", "--http", http, "create", "cli-ns", "--replicas", "1", "--storage",
                "memory", "--value-bytes-max", "32").exit()).isZero();
        CliRun other = CliRun.of("namespaces", "--http", http, "create", "cli-ns", "--storage", "disk");
        assertThat(other.exit()).isEqualTo(1);
        assertThat(other.err()).contains("refused (409)", "other settings");

        CliRun list = CliRun.of("namespaces", "--http", http);
        assertThat(list.exit()).isZero();
        assertThat(list.out().lines().toList()).hasSize(2);
        assertThat(list.out().lines().findFirst().orElseThrow()).startsWith("default");

        assertThat(CliRun.of("put", "-g", gateway, "name:cli-key", "in-default", "--ttl", "600").exit()).isZero();
        CliRun put = CliRun.of("put", "-g", gateway, "--ns", "cli-ns", "name:cli-key", "in-namespace", "--ttl", "600");
        assertThat(put.exit()).as(put.err()).isZero();
        CliRun got = CliRun.of("get", "-g", gateway, "--ns", "cli-ns", "name:cli-key");
        assertThat(got.exit()).as(got.err()).isZero();
        assertThat(got.out()).contains("in-namespace").doesNotContain("in-default");
        CliRun tooBig = CliRun.of("put", "-g", gateway, "--ns", "cli-ns", "name:cli-key", "x".repeat(33));
        assertThat(tooBig.exit()).isNotZero();

        CliRun retired = CliRun.of("namespaces", "--http", http, "retire", "cli-ns");
        assertThat(retired.exit()).as(retired.err()).isZero();
        assertThat(retired.out()).contains("cli-ns", "retired");
        CliRun gone = CliRun.of("get", "-g", gateway, "--ns", "cli-ns", "name:cli-key");
        assertThat(gone.exit()).isNotZero();
        assertThat(gone.err()).contains("cli-ns");
        CliRun stillThere = CliRun.of("get", "-g", gateway, "name:cli-key");
        assertThat(stillThere.out()).contains("in-default");
    }

    @Test
    void aMalformedNamespaceIsAUsageError() {
        CliRun r = CliRun.of("get", "-g", gateway, "--ns", "Not Valid", "name:k");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--ns", "Not Valid");
    }
}
