package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.LocalCluster;
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
 * Removes that no path node can forge (issue 18), on real sockets: real nodes in one JVM, each with its Netty
 * transport, handshake and RocksDB store. A value is put with a secret through the Java client, and one of its
 * replicas turns forger. It holds what every node on the put's path saw, the value's binding, and sends what a
 * member of the overlay can send, over its own verified connections, to the other replicas: a {@code RemoveReplica}
 * presenting the binding, and tombstones made from it. It also asks a gateway to remove the value with the binding,
 * as anyone may. The value survives on every replica; then the owner's remove, with the secret, removes it everywhere.
 */
class ForgedRemoveTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int NODES = 6;
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    @TempDir
    Path dir;
    private HostileCluster nodes;
    private LocalCluster cluster;
    private RattanClient client;

    @BeforeEach
    void startCluster() throws IOException {
        nodes = HostileCluster.start(NODES, dir, CONFIG);
        cluster = nodes.cluster;
        client = nodes.client;
    }

    @AfterEach
    void stop() {
        HostileCluster.close(nodes);
    }

    @Test
    void aReplicaCannotRemoveAValueWithTheBindingItHoldsButTheOwnerCan() throws Exception {
        Id key = Id.ofName("forged-remove");
        byte[] secret = "the owner's secret".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(key, "precious".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(10),
                secret);
        Bytes valueHash = put.valueHash();
        Bytes slot = SecretBinding.slotFor(Bytes.of(secret), key, valueHash);
        await().atMost(WAIT).until(() -> holders(key, slot).size() == CONFIG.replicas());
        List<RattanNode> replicas = holders(key, slot);

        RattanNode forger = replicas.get(0);
        Bytes binding = forger.readStore(key, slot).get().orElseThrow().binding();
        assertThat(binding).as("what the forger holds, as every node on the put's path saw it")
                .isEqualTo(SecretBinding.bindingFor(Bytes.of(secret), key, valueHash));
        assertNoNodeHoldsTheSecret(secret);
        // A remove presenting the binding as the secret opens no copy: the replicas hold the bytes under another
        // binding only. (After the forgeries below it would meet the forged tombstones in their own slot, named by
        // that wrong secret, and be answered as a repeated remove of nothing: the value stays either way.)
        // (Sent as it is, as a client of before remove proofs sends its secret: the Java client would send its proof.)
        Message refused = cluster.node(0).request(new ClientRemove(key, valueHash, binding, 600)).get();
        assertThat(refused).as("the binding presented to a gateway as the secret").isInstanceOfSatisfying(
                RemoveReply.class, r -> assertThat(r.status()).isEqualTo(Status.FORBIDDEN));

        long expiresAt = System.currentTimeMillis() + Duration.ofMinutes(30).toMillis();
        Bytes sentinel = Bytes.utf8("sentinel");
        long requestId = 1_000;
        for (RattanNode victim : replicas.subList(1, replicas.size())) {
            Address to = victim.contact().address();
            NodeTestHooks.sendAsThisNode(forger, to, requestId++, new RemoveReplica(key, valueHash, binding, 600))
                    .get();
            NodeTestHooks.sendAsThisNode(forger, to, requestId++, new StoreReplicas(List.of(
                    // The binding presented as the secret; the binding where the secret goes; SHA-256 of the
                    // secret, what version 5 stored and sent with every copy.
                    new ReplicaRecord(key, valueHash, Bytes.EMPTY, expiresAt, Bytes.EMPTY, binding, true),
                    new ReplicaRecord(key, valueHash, Bytes.EMPTY, expiresAt, binding, Bytes.EMPTY, true),
                    new ReplicaRecord(key, valueHash, Bytes.EMPTY, expiresAt, Bytes.EMPTY,
                            Bytes.of(secret).sha256(), true)))).get();
            // A copy the forger may hand over, sent after the forgeries on the same connection: a node handles one
            // connection's frames in order, so once the victim stores it, the forgeries were handled.
            NodeTestHooks.sendAsThisNode(forger, to, requestId++, new StoreReplicas(List.of(new ReplicaRecord(key,
                    sentinel.sha256(), sentinel, expiresAt, Bytes.EMPTY, Bytes.EMPTY, false)))).get();
        }
        for (RattanNode victim : replicas.subList(1, replicas.size())) {
            await().atMost(WAIT).until(() -> victim.readStore(key, sentinel.sha256()).get().isPresent());
        }

        // Repair spreads the sentinel to every replica, so the replicas compared their records after the forgeries:
        // had a forged tombstone been kept anywhere, it would have spread with it.
        await().atMost(WAIT).until(() -> holders(key, sentinel.sha256()).size() >= CONFIG.replicas());
        assertThat(holders(key, slot)).as("replicas holding the value after the forgeries")
                .containsAll(replicas);
        assertThat(tombstones(key, slot)).as("tombstones in the value's slot").isEmpty();
        assertThat(client.getSync(key).values()).extracting(v -> v.utf8()).contains("precious");

        // The owner's remove, with the secret's proof: every replica checks it and keeps a tombstone carrying it.
        assertThat(client.removeSync(key, valueHash, secret, Duration.ofMinutes(10))).isTrue();
        await().atMost(WAIT).until(() -> holders(key, slot).isEmpty()
                && tombstones(key, slot).containsAll(replicas));
        for (RattanNode n : tombstones(key, slot)) {
            assertThat(n.readStore(key, slot).get().orElseThrow().secret()).as("tombstone on %s", n)
                    .isEqualTo(SecretBinding.proof(Bytes.of(secret), key, valueHash));
        }
        assertThat(client.getSync(key).values()).extracting(v -> v.utf8()).containsExactly("sentinel");
    }

    /**
     * Issue 39, item 6: a tombstone made where the value's copy lived shorter, sent to a replica whose copy lives
     * longer, replaces that copy stretched to outlive it; before, it kept its own expiry, and once it expired any
     * node still holding a copy (one that was down meanwhile) brought the removed bytes back.
     */
    @Test
    void aTombstoneThatReplacesALongerLivedCopyIsStretchedToOutliveIt() throws Exception {
        Id key = Id.ofName("outlived-remove");
        byte[] secret = "the owner's secret".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(key, "long-lived".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(30),
                secret);
        Bytes valueHash = put.valueHash();
        Bytes slot = SecretBinding.slotFor(Bytes.of(secret), key, valueHash);
        await().atMost(WAIT).until(() -> holders(key, slot).size() == CONFIG.replicas());
        List<RattanNode> replicas = holders(key, slot);
        RattanNode sender = replicas.get(0);
        RattanNode holder = replicas.get(1);
        long copyExpires = holder.readStore(key, slot).get().orElseThrow().expiresAtMillis();

        // The owner's tombstone, as a replica whose copy had a minute left would have made it.
        long shortLived = System.currentTimeMillis() + Duration.ofMinutes(1).toMillis();
        NodeTestHooks.sendAsThisNode(sender, holder.contact().address(), 2_000, new StoreReplicas(List.of(
                new ReplicaRecord(key, valueHash, Bytes.EMPTY, shortLived, Bytes.EMPTY,
                        SecretBinding.proof(Bytes.of(secret), key, valueHash), true))))
                .get();
        await().atMost(WAIT).until(() -> tombstones(key, slot).contains(holder));
        assertThat(holder.readStore(key, slot).get().orElseThrow().expiresAtMillis())
                .as("the tombstone's expiry against the copy's, %d", copyExpires)
                .isGreaterThanOrEqualTo(copyExpires + 4 * ExpiryClock.SKEW_BOUND_MILLIS);
    }

    /** No store holds the secret, nor SHA-256 of it, after the put: only bindings crossed the network. */
    private void assertNoNodeHoldsTheSecret(byte[] secret) throws Exception {
        Bytes raw = Bytes.of(secret);
        for (RattanNode n : cluster.liveNodes()) {
            for (StoredRecord r : n.localRecords().get()) {
                assertThat(r.secret()).as("a secret in the store of %s", n).isEqualTo(Bytes.EMPTY);
                assertThat(r.binding()).isNotEqualTo(raw).isNotEqualTo(raw.sha256());
            }
        }
    }

    private List<RattanNode> holders(Id key, Bytes slot) throws Exception {
        return nodes.holders(key, slot);
    }

    private List<RattanNode> tombstones(Id key, Bytes slot) throws Exception {
        return nodes.tombstones(key, slot);
    }
}
