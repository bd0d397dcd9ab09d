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
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.LeafExchangeReply;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.PutAck;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.msg.Messages.StoreAck;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                // Named first hand: the node probes the liar, which answers, and takes it into its leaf set.
                liar.send(new Envelope(liar.contact, 1, new JoinInfo(List.of(liar.contact), false)));
                liar.send(new Envelope(liar.contact, 2, new Ping()));
                return gateway.status().leafSet().contains(liar.contact);
            });

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
     * Answers the node's frames as a replica that stores nothing: pongs, an empty leaf set, puts answered OK with its
     * own ack (after the hop's ack), copies acknowledged to the root and to the gateway. Counts the puts it took.
     */
    private static AtomicInteger answerAsAReplicaThatStoresNothing(RawPeer liar) {
        AtomicInteger puts = new AtomicInteger();
        Thread t = new Thread(() -> {
            try {
                liar.fromNode.setSoTimeout(0);
                while (true) {
                    Envelope e = TestMessages.readFrame(liar.fromNode);
                    switch (e.body().type()) {
                        case PING -> liar.send(reply(liar, e.requestId(), new Pong(List.of())));
                        case LEAF_EXCHANGE -> liar.send(reply(liar, e.requestId(), new LeafExchangeReply(List.of())));
                        case PUT_REQUEST -> {
                            PutRequest p = (PutRequest) e.body();
                            puts.incrementAndGet();
                            liar.send(reply(liar, e.requestId(), new HopAck()));
                            liar.send(reply(liar, p.originRequestId(), new PutReply(Status.OK, 2, "")));
                            liar.send(reply(liar, p.originRequestId(), new PutAck(p.key(), p.value().sha256(),
                                    p.expiresAtMillis(), p.binding())));
                        }
                        case STORE_REPLICAS -> {
                            StoreReplicas s = (StoreReplicas) e.body();
                            liar.send(reply(liar, e.requestId(), new StoreAck(s.records().size())));
                            if (s.ackTo() != null) {
                                liar.send(reply(liar, s.ackRequestId(), PutAck.of(s.records().get(0))));
                            }
                        }
                        default -> { }
                    }
                }
            } catch (IOException | RuntimeException closed) {
                // the liar or the node closed the connection
            }
        }, "fake-acker");
        t.setDaemon(true);
        t.start();
        return puts;
    }

    private static Envelope reply(RawPeer liar, long requestId, Message body) {
        return new Envelope(liar.contact, requestId, body);
    }
}
