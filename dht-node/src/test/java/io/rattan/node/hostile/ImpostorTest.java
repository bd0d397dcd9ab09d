package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.transport.TestProofs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Impostors (issue 39, item 4) against real nodes with the default settings: a host that claims a live neighbour's
 * id from its own address, which before protocol 13 kept that neighbour suspected and took over its repair stream,
 * cannot prove it (the id is the hash of the neighbour's Ed25519 key, and the handshake proves the key), so no frame
 * of it reaches the node: the claim is refused at the handshake, counted, and the neighbour keeps its place.
 */
class ImpostorTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void aHostClaimingALiveNeighboursIdIsRefusedAtTheHandshake() throws Exception {
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
        try (LocalCluster cluster = LocalCluster.start(4, dir, config)) {
            RattanNode node = cluster.node(0);
            await().atMost(WAIT).until(() -> node.status().leafSet().size() == 3);
            Contact victim = node.status().leafSet().get(0);
            List<BiFunction<Long, Contact, IdProof>> forgeries = List.of(
                    TestProofs.prover(TestMessages.key("impostor")),
                    (nonce, challenger) -> null);
            for (BiFunction<Long, Contact, IdProof> forgery : forgeries) {
                try (RawPeer impostor = new RawPeer(victim.id(), "127.0.0.5", forgery)) {
                    assertThatThrownBy(() -> impostor.dialAndProve(node.contact().address().port(), false))
                            .isInstanceOf(IOException.class);
                }
            }
            assertThat(refusedUnproven(node)).as("claims refused as unproven").isEqualTo(forgeries.size());
            assertThat(node.status().leafSet()).as("the neighbour at its own address").contains(victim);
        }
    }

    private static double refusedUnproven(RattanNode node) {
        Counter c = node.meterRegistry().find("rattan.peer.frames.refused").tag("reason", "unproven_id").counter();
        return c == null ? 0 : c.count();
    }
}
