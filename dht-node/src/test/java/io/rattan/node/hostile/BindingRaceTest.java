package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.NodeTestHooks;
import io.rattan.node.RattanNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remove rights that cannot be stolen (issue 39, item 6), on real sockets: real nodes in one JVM, each with its Netty
 * transport, handshake and RocksDB store. An attacker that saw a put's bytes stores the same bytes first, under a
 * binding of its own, on every replica; before protocol 16 the first binding stored owned the bytes' remove, so the
 * owner's remove was refused (403) and the attacker's stood. Now each binding is its own record: the owner removes
 * its own, the attacker's copy is the attacker's put, and no copy under another binding replaces the owner's
 * tombstone.
 */
class BindingRaceTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    @TempDir
    Path dir;
    private HostileCluster nodes;
    private RattanClient client;

    @BeforeEach
    void startCluster() throws IOException {
        nodes = HostileCluster.start(6, dir, CONFIG);
        client = nodes.client;
    }

    @AfterEach
    void stop() {
        HostileCluster.close(nodes);
    }

    @Test
    void theOwnerRemovesItsValueThoughAnotherStoredTheSameBytesFirstUnderItsOwnBinding() throws Exception {
        Id key = Id.ofName("binding-race");
        byte[] bytes = "the owner's value".getBytes(StandardCharsets.UTF_8);
        Bytes attackerSecret = Bytes.utf8("the attacker's secret");
        Bytes ownerSecret = Bytes.utf8("the owner's secret");
        Bytes hash = Bytes.of(bytes).sha256();
        Bytes attackerSlot = SecretBinding.slotFor(attackerSecret, key, hash);
        Bytes ownerSlot = SecretBinding.slotFor(ownerSecret, key, hash);

        client.putSync(key, bytes, TTL, attackerSecret.toByteArray());
        await().atMost(WAIT).until(() -> nodes.holders(key, attackerSlot).size() == CONFIG.replicas());
        client.putSync(key, bytes, TTL, ownerSecret.toByteArray());
        await().atMost(WAIT).until(() -> nodes.holders(key, ownerSlot).size() == CONFIG.replicas());
        assertThat(client.getSync(key).values()).as("the same bytes under two bindings, given once")
                .extracting(v -> v.utf8()).containsExactly("the owner's value");

        assertThat(client.removeSync(key, hash, ownerSecret.toByteArray(), TTL))
                .as("the owner's remove, though the attacker stored the bytes first").isTrue();
        await().atMost(WAIT).until(() -> nodes.tombstones(key, ownerSlot).size() == CONFIG.replicas());
        assertThat(nodes.holders(key, attackerSlot)).as("the attacker's own copies stay").hasSize(CONFIG.replicas());
        assertThat(client.getSync(key).values()).extracting(v -> v.utf8()).containsExactly("the owner's value");

        // The next node beyond the replicas (a member further out may not push copies at all: FarMemberTest) hands
        // every replica the removed bytes again, under its own binding and under none: each is a record of its own,
        // and the owner's tombstone stays on every replica.
        List<RattanNode> replicas = nodes.tombstones(key, ownerSlot);
        RattanNode member = nodes.cluster.liveNodes().stream().filter(n -> !replicas.contains(n))
                .min((a, b) -> a.contact().id().isCloserTo(key, b.contact().id()) ? -1 : 1).orElseThrow();
        long expiresAt = System.currentTimeMillis() + TTL.toMillis();
        Bytes memberBinding = SecretBinding.of(Bytes.utf8("a member's secret"), key, hash);
        long requestId = 3_000;
        for (RattanNode r : replicas) {
            NodeTestHooks.sendAsThisNode(member, r.contact().address(), requestId++, new StoreReplicas(List.of(
                    new ReplicaRecord(key, hash, Bytes.of(bytes), expiresAt, memberBinding, Bytes.EMPTY, false),
                    new ReplicaRecord(key, hash, Bytes.of(bytes), expiresAt, Bytes.EMPTY, Bytes.EMPTY, false))))
                    .get();
        }
        await().atMost(WAIT).until(() -> nodes.holders(key, hash).containsAll(replicas)
                && nodes.holders(key, SecretBinding.slot(hash, memberBinding)).containsAll(replicas));
        assertThat(nodes.tombstones(key, ownerSlot)).as("the owner's tombstone after the copies")
                .containsAll(replicas);

        assertThat(client.removeSync(key, hash, attackerSecret.toByteArray(), TTL)).isTrue();
        await().atMost(WAIT).until(() -> nodes.holders(key, attackerSlot).isEmpty());
        assertThat(nodes.tombstones(key, ownerSlot)).containsAll(replicas);
    }
}
