package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.NodeTestHooks;
import io.rattan.node.RattanNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf-set member pushing copies of keys far from the node it pushes to (issue 39, item 2), on real nodes: the node
 * stores only copies of keys it may hold, among their 2k closest in its view. Before, any member's copy of any key was
 * stored, and the stray check then passed it on to the key's replicas.
 */
class FarCopiesTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int NODES = 8;
    // k = 2 on a leaf set of 3 a side: a node's view (7 nodes) reaches well beyond a key's 2k = 4 closest.
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(2, 1).withLeafSetHalf(3);

    @TempDir
    Path dir;

    @Test
    void aMemberCannotMakeANodeStoreAKeyFarFromIt() throws Exception {
        try (HostileCluster nodes = HostileCluster.start(NODES, dir, CONFIG)) {
            LocalCluster cluster = nodes.cluster;
            await().atMost(WAIT).until(() -> cluster.nodes().stream()
                    .allMatch(n -> n.status().leafSet().size() == 2 * CONFIG.leafSetHalf()));
            RattanNode receiver = cluster.node(0);
            Contact member = receiver.status().leafSet().get(0);
            RattanNode sender = cluster.nodes().stream().filter(n -> n.contact().equals(member)).findFirst()
                    .orElseThrow();
            List<Id> ids = cluster.nodes().stream().map(n -> n.contact().id()).toList();
            // Far: the receiver is at best the 6th closest of all 8, so at best the 5th in any view it may hold.
            Id far = keyWhere(ids, receiver.contact().id(), rank -> rank >= 5);
            Id near = keyWhere(ids, receiver.contact().id(), rank -> rank == 0);
            Bytes farValue = Bytes.utf8("pushed far");
            Bytes nearValue = Bytes.utf8("pushed near");
            long expiresAt = System.currentTimeMillis() + Duration.ofMinutes(10).toMillis();
            NodeTestHooks.sendAsThisNode(sender, receiver.contact().address(), 5_000, new StoreReplicas(List.of(
                    new ReplicaRecord(far, farValue.sha256(), farValue, expiresAt, Bytes.EMPTY, Bytes.EMPTY, false),
                    new ReplicaRecord(near, nearValue.sha256(), nearValue, expiresAt, Bytes.EMPTY, Bytes.EMPTY,
                            false)))).get();
            // Both in one push, stored (or not) together: once the near copy is there, the far one was judged.
            await().atMost(WAIT).until(() -> receiver.readStore(near, nearValue.sha256()).get().isPresent());
            assertThat(receiver.readStore(far, farValue.sha256()).get()).as("the far key's copy").isEmpty();
        }
    }

    /** A key at which {@code node}'s rank among {@code ids} by closeness (0: closest) passes {@code rank}. */
    private static Id keyWhere(List<Id> ids, Id node, java.util.function.IntPredicate rank) {
        for (int i = 0; ; i++) {
            Id key = Id.ofName("far-copies-" + i);
            List<Id> byCloseness = ids.stream().sorted(Comparator.comparing(id -> id,
                    (a, b) -> a.equals(b) ? 0 : a.isCloserTo(key, b) ? -1 : 1)).toList();
            if (rank.test(byCloseness.indexOf(node))) {
                return key;
            }
        }
    }
}
