package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose process is gone is declared dead by the nodes that suspect it as soon as its port refuses their
 * connections, on real sockets. The probe's wait (the RTO's cap) is a minute here, longer than the test waits, so
 * only the refusal can have declared it dead.
 */
class RefusedPeerNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withTimeouts(10_000, 1_000, 100, 60_000);

    @TempDir
    Path dir;

    @Test
    void aHaltedNodeIsDeclaredDeadWhenItsPortRefusesNotWhenItsProbeGivesUp() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG)) {
            Contact halted = cluster.node(3).contact();
            await().atMost(WAIT).until(() -> cluster.liveNodes().stream()
                    .allMatch(n -> n == cluster.node(3) || n.status().leafSet().contains(halted)));

            cluster.halt(3);

            await().atMost(WAIT).until(() -> cluster.liveNodes().stream()
                    .noneMatch(n -> n.status().leafSet().contains(halted)));
            for (RattanNode n : cluster.liveNodes()) {
                assertThat(declaredDead(n, "refused")).as(n + ": declared dead on a refusal").isGreaterThanOrEqualTo(1);
                assertThat(declaredDead(n, "probe_unanswered")).as(n + ": no probe gave up").isZero();
            }
        }
    }

    private static double declaredDead(RattanNode n, String cause) {
        return n.meterRegistry().get("rattan.peers.declared.dead").tag("cause", cause).counter().count();
    }
}
