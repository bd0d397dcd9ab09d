package io.rattan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example runs as a user would run it: against the binary gateways of a cluster of real nodes on loopback. */
class HelloRattanTest {

    @TempDir
    Path dir;

    @Test
    void theExamplePutsReadsAndRemovesThroughRealNodes() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3, dir, NodeConfig.defaults().withReplicas(3, 2))) {
            List<String> gateways = cluster.nodes().stream().map(RattanNode::gatewayAddress)
                    .map(a -> a.getHostString() + ":" + a.getPort()).toList();
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            boolean ok = HelloRattan.run(gateways, new PrintStream(printed, true, StandardCharsets.UTF_8));
            String output = printed.toString(StandardCharsets.UTF_8);
            assertThat(ok).as(output).isTrue();
            assertThat(output).contains("got \"hello, rattan\"").contains("removed");
        }
    }
}
