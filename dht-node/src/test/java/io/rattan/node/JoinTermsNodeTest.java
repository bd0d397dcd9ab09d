package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.node.NodeConfig;
import io.rattan.node.process.NodeProcess;
import io.rattan.node.store.RocksDbNativeLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes check at join that they share k, W and the value limits (protocol 12): real nodes over real sockets. A node
 * started with another k or another largest value is refused with the settings to change, never joins, and is in
 * no member's leaf set; one with the same settings joins.
 */
class JoinTermsNodeTest {

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(RattanNode::halt);
    }

    @Test
    void aNodeWithOtherSettingsIsRefusedWithTheFlagsToChange() throws Exception {
        RattanNode first = start("a", NodeOptions.local(dir.resolve("a")));
        NodeConfig other = NodeConfig.defaults().toBuilder().replicas(3, 2)
                .limits(4096, NodeConfig.defaults().ttlSecondsMax(), NodeConfig.defaults().pageValuesMax(),
                        NodeConfig.defaults().pageBytesMax())
                .build();
        RattanNode refused = start("b", NodeOptions.local(dir.resolve("b")).withConfig(other)
                .withBootstrap(List.of(first.contact().address())));
        RattanNode same = start("c", NodeOptions.local(dir.resolve("c"))
                .withBootstrap(List.of(first.contact().address())));

        String why = refused.joinRefused().get(60, TimeUnit.SECONDS);
        assertThat(why).contains("--replicas 4 (this node: 3)").contains("--value-bytes-max 1024 (this node: 4096)")
                .doesNotContain("--write-quorum");
        assertThat(refused.status().joinRefusal()).isEqualTo(why);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(same::isJoined);
        assertThat(refused.isJoined()).isFalse();
        assertThat(first.status().leafSet()).doesNotContain(refused.contact());
        assertThat(same.status().joinRefusal()).isNull();
    }

    @Test
    void rattanNodeRefusedExitsWithTheSettingsToChange() throws Exception {
        RattanNode first = start("a", NodeOptions.local(dir.resolve("a")));
        Path nativeDir = RocksDbNativeLibrary.extractedFromClassPath(dir.resolve("native"));
        NodeProcess refused = NodeProcesses.startUnawaited(dir.resolve("b"), dir.resolve("b.log"), nativeDir, "160m",
                List.of("--replicas", "3", "--bootstrap", "127.0.0.1:" + first.contact().address().port()));
        try {
            assertThat(refused.awaitExit(Duration.ofMinutes(3))).isTrue();
            assertThat(refused.exitStatus()).as("EX_CONFIG").hasValue(78);
            assertThat(Files.readString(dir.resolve("b.log"))).contains("rattan node: the cluster refused this node")
                    .contains("--replicas 4 (this node: 3)");
        } finally {
            NodeProcesses.killAll(List.of(refused));
        }
    }

    private RattanNode start(String name, NodeOptions options) throws Exception {
        RattanNode node = RattanNode.start(options);
        nodes.add(node);
        return node;
    }
}
