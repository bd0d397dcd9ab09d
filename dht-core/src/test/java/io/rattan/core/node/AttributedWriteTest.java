package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A gateway's attributed put and remove ({@link AttributedWrite}) on a hand-built node: which acks count toward W (one a
 * node, one a host but the gateway's own, each naming what the write carried), what the root's word is worth, and when
 * it answers.
 */
class AttributedWriteTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long ID = 77;
    private static final Contact GATEWAY = new Contact(Id.ofName("gateway"), new Address("10.0.0.1", 4000));
    private static final Bytes VALUE = Bytes.utf8("v");
    private static final Bytes BINDING = Bytes.utf8("binding").sha256();

    private final VirtualScheduler scheduler = new VirtualScheduler(1_700_000_000_000L);
    private final AtomicInteger refused = new AtomicInteger();
    private final HandBuiltNode node = HandBuiltNode.of(GATEWAY, NodeConfig.defaults(), scheduler, new NodeListener() {
        @Override
        public void putAckRefused() {
            refused.incrementAndGet();
        }

        @Override
        public void removeAckRefused() {
            refused.incrementAndGet();
        }
    }, (to, e) -> { });
    private final long expiresAt = scheduler.epochMillis() + 600_000;
    private final PutRequest put = new PutRequest(Id.ofName("key"), VALUE, 600, expiresAt, BINDING, GATEWAY, ID, 0);
    private final List<Message> answers = new ArrayList<>();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger resends = new AtomicInteger();

    private void start() {
        AttributedWrite.put(node.ctx(), put, 2, scheduler.nanoTime() + 4 * SECOND, answers::add,
                timeouts::incrementAndGet, () -> { }, resends::incrementAndGet).start(ID);
    }

    private final RemoveRequest remove = new RemoveRequest(put.key(), VALUE.sha256(), Bytes.utf8("secret"), 600,
            GATEWAY, ID, 0);

    private void startRemove() {
        AttributedWrite.remove(node.ctx(), remove, 2, scheduler.nanoTime() + 4 * SECOND, answers::add,
                timeouts::incrementAndGet, () -> { }, resends::incrementAndGet).start(ID);
    }

    private void from(Contact sender, Message m) {
        node.outbox().onReply(new Envelope(sender, ID, m));
    }

    private PutAck ack() {
        return new PutAck(put.key(), VALUE.sha256(), expiresAt, BINDING);
    }

    private static Contact node(String name, String host) {
        return new Contact(Id.ofName(name), new Address(host, 4000));
    }

    @Test
    void wDistinctHostsAcknowledgeThePutAndTheRootsOkIsWorthNothing() {
        start();
        from(node("root", "10.0.0.2"), new PutReply(Status.OK, 2, ""));
        from(node("root", "10.0.0.2"), ack());
        from(node("root", "10.0.0.2"), ack());
        from(node("twin", "10.0.0.2"), ack());
        from(node("other-64", "fd00::1"), new StoreAck(1));
        assertThat(answers).as("one host so far, however many ids and replies").isEmpty();

        from(node("replica", "10.0.0.3"), ack());

        assertThat(answers).containsExactly(new PutReply(Status.OK, 2, ""));
        from(node("late", "10.0.0.4"), ack());
        assertThat(answers).as("decided once").hasSize(1);
    }

    @Test
    void idsOnTheGatewaysOwnHostCountEachButOneIpv6SlashSixtyFourCountsOnce() {
        start();
        from(node("a", "fd00:0:0:1::a"), ack());
        from(node("b", "fd00:0:0:1::b"), ack());
        assertThat(answers).as("one /64, one host").isEmpty();
        from(node("local", "10.0.0.1"), ack());
        assertThat(answers).containsExactly(new PutReply(Status.OK, 2, ""));
    }

    @Test
    void anAckNamingAnotherRecordOrALaterExpiryIsRefusedAndCounted() {
        start();
        from(node("b1", "10.0.0.2"), new PutAck(put.key(), Bytes.utf8("other").sha256(), expiresAt, BINDING));
        from(node("b2", "10.0.0.3"), new PutAck(put.key(), VALUE.sha256(), expiresAt, Bytes.EMPTY));
        from(node("b3", "10.0.0.4"), new PutAck(put.key(), VALUE.sha256(), expiresAt + 1, BINDING));
        from(node("b4", "10.0.0.5"), new PutAck(Id.ofName("other"), VALUE.sha256(), expiresAt, BINDING));
        from(null, ack());
        assertThat(refused).hasValue(5);
        assertThat(answers).isEmpty();

        // A root whose clock runs behind the gateway's shortens the expiry, within what settled clocks may disagree.
        from(node("shortened", "10.0.0.6"), new PutAck(put.key(), VALUE.sha256(),
                expiresAt - ExpiryClock.SPREAD_BOUND_MILLIS, BINDING));
        from(node("exact", "10.0.0.7"), ack());
        assertThat(answers).containsExactly(new PutReply(Status.OK, 2, ""));
    }

    @Test
    void shortOfWItGoesOnceMoreHalfwayAndAnswersUnavailableAtItsDeadline() {
        start();
        from(node("root", "10.0.0.2"), new PutReply(Status.OK, 2, ""));
        from(node("root", "10.0.0.2"), ack());
        scheduler.runFor(2 * SECOND + 1);
        assertThat(resends).as("sent once more, halfway").hasValue(1);
        assertThat(answers).isEmpty();

        scheduler.runFor(3 * SECOND);

        assertThat(resends).hasValue(1);
        assertThat(timeouts).hasValue(0);
        assertThat(answers).hasSize(1);
        PutReply r = (PutReply) answers.get(0);
        assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(r.replicas()).isEqualTo(1);
        assertThat(r.detail()).contains("only 1 of 2", "its root answered OK");
    }

    @Test
    void aRootsRefusalIsPassedOnAtOnceAndNothingAtAllTimesOut() {
        start();
        from(node("root", "10.0.0.2"), new ErrorReply(Status.STORAGE_FULL, "full"));
        assertThat(answers).containsExactly(new ErrorReply(Status.STORAGE_FULL, "full"));

        answers.clear();
        start();
        scheduler.runFor(5 * SECOND);
        assertThat(answers).isEmpty();
        assertThat(timeouts).as("no word from anyone: the request timed out").hasValue(1);
    }

    @Test
    void aRemoveIsAcknowledgedOnWHostsTombstoneAcksAndTheRootsOkIsWorthNothing() {
        startRemove();
        RemoveAck tombstone = new RemoveAck(remove.key(), remove.valueHash());
        from(node("liar", "10.0.0.2"), new RemoveReply(Status.OK, ""));
        from(node("liar", "10.0.0.2"), tombstone);
        from(node("liar-twin", "10.0.0.2"), tombstone);
        from(node("put-ack", "10.0.0.3"), ack());
        from(node("other-value", "10.0.0.4"), new RemoveAck(remove.key(), Bytes.utf8("other").sha256()));
        from(node("other-key", "10.0.0.5"), new RemoveAck(Id.ofName("other"), remove.valueHash()));
        assertThat(refused).as("a put's ack, another value, another key").hasValue(3);
        assertThat(answers).as("one host's word, however many ids").isEmpty();

        scheduler.runFor(2 * SECOND + 1);
        assertThat(resends).as("sent once more, halfway").hasValue(1);
        from(node("replica", "10.0.0.6"), tombstone);
        assertThat(answers).as("W tombstones, and the root's OK came before them").containsExactly(
                new RemoveReply(Status.OK, ""));
    }

    @Test
    void aRemoveWaitsForItsRootsOkAfterWAcksOrForItsDeadline() {
        startRemove();
        RemoveAck tombstone = new RemoveAck(remove.key(), remove.valueHash());
        from(node("root", "10.0.0.2"), tombstone);
        from(node("replica", "10.0.0.3"), tombstone);
        assertThat(answers).as("the root has not heard from every replica yet").isEmpty();
        from(node("root", "10.0.0.2"), new RemoveReply(Status.OK, ""));
        assertThat(answers).containsExactly(new RemoveReply(Status.OK, ""));

        answers.clear();
        startRemove();
        from(node("root", "10.0.0.2"), tombstone);
        from(node("replica", "10.0.0.3"), tombstone);
        scheduler.runFor(5 * SECOND);
        assertThat(answers).as("a root that never answered: W tombstones are the answer").containsExactly(
                new RemoveReply(Status.OK, ""));
        assertThat(timeouts).hasValue(0);
    }

    @Test
    void aRemoveShortOfWAnswersUnavailableAndItsRootsRefusalPassesAtOnce() {
        startRemove();
        from(node("root", "10.0.0.2"), new RemoveReply(Status.OK, ""));
        from(node("root", "10.0.0.2"), new RemoveAck(remove.key(), remove.valueHash()));
        scheduler.runFor(5 * SECOND);
        assertThat(answers).hasSize(1);
        RemoveReply r = (RemoveReply) answers.get(0);
        assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(r.detail()).contains("only 1 of 2 replicas acknowledged the remove", "its root answered OK");

        answers.clear();
        startRemove();
        from(node("root", "10.0.0.2"), new RemoveReply(Status.FORBIDDEN, "wrong secret"));
        assertThat(answers).containsExactly(new RemoveReply(Status.FORBIDDEN, "wrong secret"));
    }
}
