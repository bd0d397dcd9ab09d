package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 39, item 1, on real sockets: a liar with a key of its own joins a node's view and answers what it is sent
 * as a replica would, storing nothing. A put routed to it as the key's root it answers OK in the root's place and
 * acknowledges a copy in its own name; a copy asked of it it acknowledges to the root and to the gateway. Before
 * protocol 14 the gateway took the root's word, and the client was told 201 with no copy anywhere. Now a put is
 * acknowledged only on W replicas' own acks, one per node: the liar's one is not W = 2, so the put through it fails;
 * a put whose root is the honest node is acknowledged on its own ack and the liar's, with one real copy: what a node
 * that sees a put, on its path or among its replicas, can still do (docs/security.md).
 */
class FakeAckTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(2).toBuilder()
            .timeouts(2_000, 100, 100, 1_000).build();

    @TempDir
    Path dir;

    @Test
    void aLiarAnsweringAsTheRootCannotAcknowledgeAPutAndCountsOnceAsAReplica() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, dir, CONFIG);
             RawPeer liar = new RawPeer("fake-acker");
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort()))
                     .attemptTimeout(Duration.ofSeconds(4)).totalTimeout(Duration.ofSeconds(6)).build()) {
            RattanNode gateway = cluster.node(0);
            liar.dialAndProve(gateway.contact().address().port(), true);
            AtomicInteger putsTaken = answerAsAReplicaThatStoresNothing(liar);
            LyingMember.joinTheView(liar, gateway);

            Id liarsKey = liar.contact.id();
            byte[] value = "through the liar".getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> client.putSync(liarsKey, value, Duration.ofMinutes(10)))
                    .as("a put whose root is the liar")
                    .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status())
                            .isIn(Status.UNAVAILABLE, Status.TIMEOUT));
            assertThat(putsTaken.get()).as("puts the liar answered in the root's place").isPositive();
            assertThat(gateway.readStore(liarsKey, Bytes.wrap(value).sha256()).get()).as("copies anywhere")
                    .isEmpty();

            Id honestKey = gateway.contact().id();
            PutResult honest = client.putSync(honestKey, "through the honest root".getBytes(StandardCharsets.UTF_8),
                    Duration.ofMinutes(10));
            assertThat(honest.replicas()).as("acks counted: the root's own and the liar's").isEqualTo(2);
            assertThat(gateway.readStore(honestKey, honest.valueHash()).get()).as("the one real copy").isPresent();
        }
    }

    /**
     * The same for removes (protocol 15): a remove routed to the liar as the key's root it answers OK in the root's
     * place and acknowledges a tombstone in its own name. Before, the gateway took the root's word: the client heard
     * "removed" and the value stayed (the same test with {@code removeAcksRequired(false)}). Now the remove fails and
     * the client knows the value is there; a remove whose root is honest is acknowledged on the root's tombstone and
     * the liar's word, with one real tombstone. The same with a gateway held at 15, the first version with remove
     * acks (a rolling upgrade): from 16 until 09a56d8 such a gateway took the root's word, comparing its version with
     * the newest.
     */
    @ParameterizedTest(name = "gateway speaking {0}")
    @ValueSource(ints = {MessageCodec.VERSION, MessageCodec.VERSION_REMOVE_ACKS})
    void aLiarAnsweringAsTheRootCannotAcknowledgeARemove(int version) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, dir, CONFIG.toBuilder().protocolVersion(version).build());
             RawPeer liar = new RawPeer("fake-remover").speaking(version);
             RattanClient client = RattanClient.builder().protocolVersion(version)
                     .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort()))
                     .attemptTimeout(Duration.ofSeconds(4)).totalTimeout(Duration.ofSeconds(6)).build()) {
            RattanNode gateway = cluster.node(0);
            liar.dialAndProve(gateway.contact().address().port(), true);
            AtomicInteger removesTaken = new AtomicInteger();
            answerAsAReplicaThatStoresNothing(liar, removesTaken);
            LyingMember.joinTheView(liar, gateway);

            // A value under the liar's key that the gateway holds as its other replica (a copy the liar hands it).
            Id liarsKey = liar.contact.id();
            byte[] secret = "the owner's secret".getBytes(StandardCharsets.UTF_8);
            Bytes value = Bytes.utf8("removed through the liar");
            Bytes hash = value.sha256();
            Bytes slot = SecretBinding.slotFor(Bytes.wrap(secret), liarsKey, hash);
            liar.send(new Envelope(liar.contact, 5, new StoreReplicas(List.of(new ReplicaRecord(liarsKey, hash, value,
                    System.currentTimeMillis() + 600_000, SecretBinding.bindingFor(Bytes.wrap(secret), liarsKey, hash),
                    Bytes.EMPTY, false)))));
            await().atMost(WAIT).until(() -> gateway.readStore(liarsKey, slot).get().isPresent());

            assertThatThrownBy(() -> client.removeSync(liarsKey, hash, secret, Duration.ofMinutes(20)))
                    .as("a remove whose root is the liar")
                    .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status())
                            .isIn(Status.UNAVAILABLE, Status.TIMEOUT));
            assertThat(removesTaken.get()).as("removes the liar answered in the root's place").isPositive();
            assertThat(gateway.readStore(liarsKey, slot).get()).as("the value, still live")
                    .hasValueSatisfying(r -> assertThat(r.tombstone()).isFalse());

            Id honestKey = gateway.contact().id();
            PutResult put = client.putSync(honestKey, "removed through the honest root".getBytes(
                    StandardCharsets.UTF_8), Duration.ofMinutes(10), secret);
            assertThat(client.removeSync(honestKey, put.valueHash(), secret, Duration.ofMinutes(20)))
                    .as("acknowledged on the root's tombstone and the liar's word").isTrue();
            assertThat(gateway.readStore(honestKey, SecretBinding.slotFor(Bytes.wrap(secret), honestKey,
                    put.valueHash())).get()).as("the one real tombstone")
                    .hasValueSatisfying(r -> assertThat(r.tombstone()).isTrue());
        }
    }

    private static AtomicInteger answerAsAReplicaThatStoresNothing(RawPeer liar) {
        AtomicInteger puts = new AtomicInteger();
        answerAsAReplicaThatStoresNothing(liar, puts);
        return puts;
    }

    /**
     * Answers the node's frames as a replica that stores nothing ({@link LyingMember}): puts and removes routed to it
     * answered OK with its own ack (after the hop's ack), a replica's removes answered OK and acknowledged to the
     * gateway. Counts the routed puts and removes it took.
     */
    private static void answerAsAReplicaThatStoresNothing(RawPeer liar, AtomicInteger taken) {
        LyingMember.answer(liar, "fake-acker", e -> {
            if (e.body() instanceof PutRequest p) {
                taken.incrementAndGet();
                liar.send(reply(liar, e.requestId(), new HopAck()));
                liar.send(reply(liar, p.originRequestId(), new PutReply(Status.OK, 2, "")));
                liar.send(reply(liar, p.originRequestId(), new PutAck(p.key(), p.value().sha256(),
                        p.expiresAtMillis(), p.binding())));
            } else if (e.body() instanceof RemoveRequest r) {
                taken.incrementAndGet();
                liar.send(reply(liar, e.requestId(), new HopAck()));
                liar.send(reply(liar, r.originRequestId(), new RemoveReply(Status.OK, "")));
                liar.send(reply(liar, r.originRequestId(), new RemoveAck(r.key(), r.valueHash())));
            } else if (e.body() instanceof RemoveReplica r) {
                liar.send(reply(liar, e.requestId(), new RemoveReplicaReply(Status.OK)));
                if (r.ackTo() != null) {
                    liar.send(reply(liar, r.ackRequestId(), new RemoveAck(r.key(), r.valueHash())));
                }
            }
        });
    }

    private static Envelope reply(RawPeer liar, long requestId, Message body) {
        return LyingMember.reply(liar, requestId, body);
    }
}
