package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.OriginLimits;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.TestMessages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, item 2, on real sockets: puts sent on the peer port count against their origin at the key's root. A
 * host that proves its own id sends puts straight to a key's root. Naming an honest gateway as their origin, without
 * that gateway's signature or with its own, they are refused ({@code FORBIDDEN}, to the origin named) and stored
 * nowhere; before, the root stored them (nothing said who sent a put). Naming itself and signing them, they are
 * stored until its share at that root is spent, and the next is refused {@code QUOTA_EXCEEDED}.
 */
class OriginProofTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SHARE_BYTES = 100;
    private static final NodeConfig CONFIG = NodeConfig.defaults().toBuilder()
            .origin(new OriginLimits(true, OriginLimits.OFF, SHARE_BYTES)).build();

    @TempDir
    Path dir;

    @Test
    void aRootTakesAPeersPutOnlySignedByItsOriginAndWithinThatOriginsShare() throws Exception {
        NodeKey liarKey = TestMessages.key("origin-forger");
        try (LocalCluster cluster = LocalCluster.start(4, dir, CONFIG);
             RawPeer liar = new RawPeer("origin-forger")) {
            RattanNode root = cluster.node(1);
            Contact honest = cluster.node(0).contact();
            Id key = root.contact().id();
            liar.dialAndProve(root.contact().address().port(), true);
            BlockingQueue<Envelope> replies = new LinkedBlockingQueue<>();
            LyingMember.answer(liar, "origin-forger", e -> {
                if (e.body() instanceof PutReply) {
                    replies.add(e);
                }
            });
            Counter unproven = root.meterRegistry().get("rattan.origin.puts.refused").tag("reason", "unproven")
                    .counter();

            PutRequest unsigned = put(key, "in an honest gateway's name", honest, 1);
            PutRequest signedByTheLiar = put(key, "signed by another", honest, 2).signedBy(liarKey,
                    NamespaceDefinition.DEFAULT);
            liar.send(new Envelope(liar.contact, 11, unsigned));
            liar.send(new Envelope(liar.contact, 12, signedByTheLiar));
            await().atMost(WAIT).until(() -> unproven.count() >= 2);

            String sixty = "x".repeat(60);
            liar.send(new Envelope(liar.contact, 13, put(key, sixty, liar.contact, 3).signedBy(liarKey,
                    NamespaceDefinition.DEFAULT)));
            assertThat(reply(replies, 3).status()).as("its own put, signed").isEqualTo(Status.OK);
            liar.send(new Envelope(liar.contact, 14, put(key, "y".repeat(60), liar.contact, 4).signedBy(liarKey,
                    NamespaceDefinition.DEFAULT)));
            assertThat(reply(replies, 4).status()).as("beyond its share of %d bytes", SHARE_BYTES)
                    .isEqualTo(Status.QUOTA_EXCEEDED);

            assertThat(unproven.count()).isEqualTo(2);
            for (int i = 0; i < 4; i++) {
                RattanNode n = cluster.node(i);
                for (PutRequest forged : new PutRequest[] {unsigned, signedByTheLiar, put(key, "y".repeat(60),
                        liar.contact, 4)}) {
                    assertThat(n.readStore(key, forged.value().sha256()).get(10, TimeUnit.SECONDS))
                            .as("%s at %s", forged.value(), n.contact()).isEmpty();
                }
            }
            assertThat(root.readStore(key, Bytes.utf8(sixty).sha256()).get(10, TimeUnit.SECONDS)).isPresent();
        }
    }

    private static PutRequest put(Id key, String value, Contact origin, long requestId) {
        return new PutRequest(key, Bytes.utf8(value), 600, System.currentTimeMillis() + 600_000, Bytes.EMPTY, origin,
                requestId, 0);
    }

    private static PutReply reply(BlockingQueue<Envelope> replies, long requestId) throws InterruptedException {
        while (true) {
            Envelope e = replies.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(e).as("the root's answer to put %d", requestId).isNotNull();
            if (e.requestId() == requestId) {
                return (PutReply) e.body();
            }
        }
    }
}
