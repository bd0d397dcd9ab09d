package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, item 2, on real sockets: a liar in a replica's leaf set, far from a key (no replica of it, nor the next).
 * It reads the replica's records of the key as a quorum get's coordinator would (REPLICA_READ): the values, as any
 * member may (a get shows them anyway), but not the key's tombstone, which carries the remove's secret; before, the
 * replica sent it to any member of its leaf set, now only to a replica of the key, or the next beyond, that its view
 * can place (as a digest's answer), and the read is refused as UNAVAILABLE, the answer of views that differ. And it
 * cannot make the replica store a copy of the key it pushes unasked (before, any member could); one it offers by a
 * digest, as the stray check does, the replica asks for and stores.
 */
class FarMemberTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    // One replica, so that the liar, which every node's leaf set holds, can be placed beyond a key's replica and next.
    private static final int REPLICAS = 1;
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(REPLICAS, 1).withLeafSetHalf(2);

    @TempDir
    Path dir;

    @Test
    void aMemberFarFromAKeyReadsItsValuesButNotItsTombstone() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG);
             RawPeer liar = new RawPeer("secret-reader");
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort())).build()) {
            BlockingQueue<Envelope> answers = new LinkedBlockingQueue<>();
            RattanNode replica = joinFarFromItsKey(cluster, liar, answers,
                    m -> m instanceof ReplicaReadReply || m instanceof ErrorReply);
            Id key = replica.contact().id();

            byte[] secret = "the remove's secret".getBytes(StandardCharsets.UTF_8);
            PutResult put = client.putSync(key, "removed later".getBytes(StandardCharsets.UTF_8),
                    Duration.ofMinutes(10), secret);
            Bytes slot = SecretBinding.slotFor(Bytes.wrap(secret), key, put.valueHash());
            await().atMost(WAIT).until(() -> replica.readStore(key, slot).get().isPresent());
            Envelope values = read(liar, answers, key, 50);
            assertThat(values.body()).as("the value, read by a member").isInstanceOfSatisfying(ReplicaReadReply.class,
                    r -> assertThat(r.records()).extracting(ReplicaRecord::tombstone).containsExactly(false));

            assertThat(client.removeSync(key, put.valueHash(), secret, Duration.ofMinutes(10))).isTrue();
            await().atMost(WAIT).until(() -> replica.readStore(key, slot).get().filter(r -> r.tombstone())
                    .isPresent());
            Counter withheld = replica.meterRegistry().get("rattan.repair.tombstones.withheld").counter();
            double before = withheld.count();
            Envelope refused = read(liar, answers, key, 51);
            assertThat(refused.body()).as("the tombstone, which carries the secret").isInstanceOfSatisfying(
                    ErrorReply.class, e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));
            assertThat(withheld.count() - before).isEqualTo(1);
        }
    }

    @Test
    void aMemberFarFromAKeyCannotPushACopyOfItButMayHandOneItWasAskedFor() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG);
             RawPeer liar = new RawPeer("copy-pusher")) {
            BlockingQueue<Envelope> answers = new LinkedBlockingQueue<>();
            RattanNode replica = joinFarFromItsKey(cluster, liar, answers,
                    m -> m instanceof StoreAck || m instanceof DigestWant);
            Id key = replica.contact().id();

            ReplicaRecord pushed = copy(key, "pushed unasked");
            StoreAck refused = (StoreAck) ask(liar, answers, new StoreReplicas(List.of(pushed)), 60).body();
            assertThat(refused.accepted()).as("copies the replica stored of those pushed unasked").isZero();
            assertThat(replica.readStore(key, pushed.slot()).get()).isEmpty();

            ReplicaRecord offered = copy(key, "offered first");
            DigestWant want = (DigestWant) ask(liar, answers, new Digest(List.of(new DigestEntry(key,
                    offered.slot(), false))), 61).body();
            assertThat(want.entries()).extracting(DigestEntry::slot).containsExactly(offered.slot());
            StoreAck stored = (StoreAck) ask(liar, answers, new StoreReplicas(List.of(offered)), 62).body();
            assertThat(stored.accepted()).as("the copy the replica asked for").isEqualTo(1);
            assertThat(replica.readStore(key, offered.slot()).get()).isPresent();
        }
    }

    /**
     * Joins the liar to the view of the node whose id, as a key, has the liar neither as its replica nor as the next
     * ({@link #replicaFarFromTheLiar}), and returns that node; the node's frames that {@code kept} accepts go to
     * {@code answers}, the rest are answered as a member that stores nothing ({@link LyingMember}).
     */
    private static RattanNode joinFarFromItsKey(LocalCluster cluster, RawPeer liar, BlockingQueue<Envelope> answers,
                                                Predicate<Message> kept) throws IOException {
        RattanNode replica = replicaFarFromTheLiar(cluster, liar.contact.id());
        liar.dialAndProve(replica.contact().address().port(), true);
        LyingMember.answer(liar, "far-member", e -> {
            if (kept.test(e.body())) {
                answers.add(e);
            }
        });
        LyingMember.joinTheView(liar, replica);
        return replica;
    }

    private static ReplicaRecord copy(Id key, String text) {
        Bytes value = Bytes.utf8(text);
        return new ReplicaRecord(key, value.sha256(), value, System.currentTimeMillis() + 600_000, Bytes.EMPTY,
                Bytes.EMPTY, false);
    }

    /** The liar's read of {@code key} and the replica's answer to it. */
    private static Envelope read(RawPeer liar, BlockingQueue<Envelope> answers, Id key, long requestId)
            throws Exception {
        return ask(liar, answers, new ReplicaRead(key, Bytes.EMPTY, 0), requestId);
    }

    /** Sends {@code body} from the liar and returns the replica's answer to it. */
    private static Envelope ask(RawPeer liar, BlockingQueue<Envelope> answers, Message body, long requestId)
            throws Exception {
        liar.send(new Envelope(liar.contact, requestId, body));
        while (true) {
            Envelope e = answers.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(e).as("the replica's answer to request %d", requestId).isNotNull();
            if (e.requestId() == requestId) {
                return e;
            }
        }
    }

    /**
     * A node whose own id, as a key, has neither the liar as its replica nor as the next beyond: the liar is a member
     * of every leaf set here (four nodes and the liar, two members a side), but far from that key; of those, the one
     * whose id has the liar farthest. One always exists: of the four, at least two are not the liar's neighbours on
     * the ring, and from such a node's id a node lies between it and the liar whichever way round, so the liar is at
     * best the key's third closest.
     */
    private static RattanNode replicaFarFromTheLiar(LocalCluster cluster, Id liar) {
        List<Id> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(cluster.node(i).contact().id());
        }
        // The farthest the liar can be: a node closer to the key than the liar that is suspected for a moment (a
        // busy machine) leaves every replica set, and the liar moves up one place.
        int best = 0;
        for (int i = 1; i < nodes.size(); i++) {
            if (rank(nodes.get(i), liar, nodes, liar) > rank(nodes.get(best), liar, nodes, liar)) {
                best = i;
            }
        }
        if (rank(nodes.get(best), liar, nodes, liar) <= REPLICAS) {
            throw new IllegalStateException("every node's id has the liar among its two closest: " + nodes);
        }
        return cluster.node(best);
    }

    /** How many of the nodes and the liar are closer to {@code key} than {@code x}. */
    private static int rank(Id key, Id x, List<Id> nodes, Id liar) {
        int closer = liar.isCloserTo(key, x) ? 1 : 0;
        for (Id n : nodes) {
            closer += n.isCloserTo(key, x) ? 1 : 0;
        }
        return closer;
    }
}
