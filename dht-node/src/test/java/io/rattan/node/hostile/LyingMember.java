package io.rattan.node.hostile;

import static org.awaitility.Awaitility.await;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A raw peer that a node takes into its leaf set and that answers as a member that stores nothing (issue 39's liars
 * on real sockets): pongs, an empty leaf set, copies acknowledged to the root and to their gateway, never stored; what
 * else it is sent goes to the test's own lies.
 */
final class LyingMember {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private LyingMember() {
    }

    /** Names the liar to {@code node} first hand until the node has it in its leaf set. */
    static void joinTheView(RawPeer liar, RattanNode node) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            // The node probes the liar, which answers, and takes it into its leaf set.
            liar.send(new Envelope(liar.contact, 1, new JoinInfo(List.of(liar.contact), false)));
            liar.send(new Envelope(liar.contact, 2, new Ping()));
            return node.status().leafSet().contains(liar.contact);
        });
    }

    /**
     * Answers the node's frames on a thread of its own until either side closes: the member's part here, every other
     * frame to {@code lies}.
     */
    static void answer(RawPeer liar, String name, Lies lies) {
        Thread t = new Thread(() -> {
            try {
                liar.fromNode.setSoTimeout(0);
                while (true) {
                    Envelope e = TestMessages.readFrame(liar.fromNode);
                    switch (e.body().type()) {
                        case PING -> liar.send(reply(liar, e.requestId(), new Pong(List.of())));
                        case LEAF_EXCHANGE -> liar.send(reply(liar, e.requestId(), new LeafExchangeReply(List.of())));
                        case STORE_REPLICAS -> {
                            StoreReplicas s = (StoreReplicas) e.body();
                            liar.send(reply(liar, e.requestId(), new StoreAck(s.records().size())));
                            if (s.ackTo() != null) {
                                liar.send(reply(liar, s.ackRequestId(), PutAck.of(s.records().get(0))));
                            }
                        }
                        default -> lies.answer(e);
                    }
                }
            } catch (IOException | RuntimeException closed) {
                // the liar or the node closed the connection
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    /** What the test's liar does with a frame the member's part does not answer. */
    @FunctionalInterface
    interface Lies {
        void answer(Envelope e) throws IOException;
    }

    /** A frame from the liar under {@code requestId}. */
    static Envelope reply(RawPeer liar, long requestId, Message body) {
        return new Envelope(liar.contact, requestId, body);
    }
}
