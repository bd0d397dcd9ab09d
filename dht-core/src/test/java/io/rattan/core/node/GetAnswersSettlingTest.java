package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.ReplicaRead;
import io.rattan.core.msg.Messages.ReplicaReadReply;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replica whose view changed moments ago (it started, a neighbour joined, died or came back, its store refused
 * copies until now) may lack puts its replica set holds: with W = 2 of k = 4 a put acknowledged by two other replicas
 * is on none of this node's disk until repair brings it, and the fault simulator found such replicas answering gets
 * without it (docs/testing.md, "Rule 1 traced"). For {@link GetAnswers#SETTLING_INTERVALS} anti-entropy intervals
 * after a change it reads the next replica as well, merges and keeps what it lacked; settled, it reads itself alone.
 * Built from its parts without a network: the outbox sends into a list. This node S (0x80…01) is the root of KEY;
 * A (0x80…02) is the next replica.
 */
class GetAnswersSettlingTest {

    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    private static final Bytes SECRET = Bytes.utf8("s");

    private record Sent(Address to, Envelope envelope) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final List<Boolean> served = new ArrayList<>();
    private VirtualScheduler scheduler;
    private MemoryStore memory;
    private boolean healthy = true;
    private Outbox outbox;
    private GetAnswers gets;
    private NodeConfig config;
    private Contact a;
    private final Contact gateway = contact("0100000000000000000000000000000000000000", 9);

    private static Contact contact(String hex, int host) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + host, 4000));
    }

    @BeforeEach
    void build() {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        memory = new MemoryStore(scheduler::epochMillis);
        ForwardingStore store = new ForwardingStore(memory) {
            @Override
            public boolean healthy() {
                return healthy;
            }
        };
        Contact self = contact("8000000000000000000000000000000000000001", 1);
        config = NodeConfig.defaults().withReplicas(4, 2);
        NodeListener listener = new NodeListener() {
            @Override
            public void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
                served.add(secondReplica);
            }
        };
        NodeContext ctx = new NodeContext(self, config, scheduler, scheduler, new SplittableRandom(1), listener);
        Membership members = new Membership(ctx, () -> { });
        outbox = new Outbox(ctx, (to, e) -> sent.add(new Sent(to, e)), members::sampleRtt);
        ctx.attach(outbox);
        gets = new GetAnswers(ctx, members, new LocalReplica(config, store, scheduler, ctx.tag()));
        a = contact("8000000000000000000000000000000000000002", 2);
        members.heard(a);
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffffd", 3));
        members.heard(contact("8000000000000000000000000000000000000004", 4));
    }

    private StoredRecord value(String v) {
        return StoredRecord.value(KEY, Bytes.utf8(v), scheduler.epochMillis() + 600_000,
                SecretBinding.of(SECRET, KEY, Bytes.utf8(v).sha256()));
    }

    private static ReplicaRecord wire(StoredRecord r) {
        return new ReplicaRecord(r.key(), r.valueHash(), r.value(), r.expiresAtMillis(), r.binding(), r.secret(),
                r.tombstone());
    }

    private List<Sent> sent(Class<?> type) {
        return sent.stream().filter(s -> type.isInstance(s.envelope().body())).toList();
    }

    private GetRequest get() {
        return new GetRequest(KEY, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY, gateway, 77, 2, false, Cost.ZERO);
    }

    private long settlingNanos() {
        return GetAnswers.SETTLING_INTERVALS * config.antiEntropyIntervalMillis() * 1_000_000L;
    }

    private List<Bytes> storedValues() {
        List<Bytes> out = new ArrayList<>();
        for (StoredRecord r : memory.scanKey(Store.Cursor.atKey(KEY), 100)) {
            if (r.key().equals(KEY) && !r.tombstone()) {
                out.add(r.value());
            }
        }
        return out;
    }

    @Test
    void aReplicaWhoseViewJustChangedMergesWithTheNextReplicaAndKeepsWhatItLacked() {
        StoredRecord old = value("old");
        StoredRecord missed = value("put while this node was not a replica yet");
        memory.write(old);
        gets.viewChanged();
        scheduler.runFor(settlingNanos() / 2);

        gets.serve(get());

        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("one other replica read, the closest").hasSize(1);
        assertThat(reads.get(0).to()).isEqualTo(a.address());
        assertThat(sent(GetReply.class)).as("no answer before the second replica's").isEmpty();
        outbox.onReply(new Envelope(a, reads.get(0).envelope().requestId(),
                new ReplicaReadReply(List.of(wire(old), wire(missed)), false)));
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.values()).extracting(v -> v.value()).containsExactlyInAnyOrder(old.value(), missed.value());
        assertThat(storedValues()).as("read repair: the value it lacked is now here")
                .containsExactlyInAnyOrder(old.value(), missed.value());
        assertThat(served).containsExactly(true);
    }

    @Test
    void aSettledReplicaAnswersFromItsOwnStoreAlone() {
        memory.write(value("old"));
        gets.viewChanged();
        scheduler.runFor(settlingNanos());

        gets.serve(get());

        assertThat(sent(ReplicaRead.class)).isEmpty();
        assertThat(sent(GetReply.class)).hasSize(1);
        assertThat(served).containsExactly(false);
    }

    @Test
    void aNodeThatNeverSawAChangeIsSettled() {
        // The window starts at a change (Node.start is one); a node with no change at all has nothing to wait for.
        assertThat(gets.settled()).isTrue();
    }

    @Test
    void eachChangeRestartsTheWindow() {
        gets.viewChanged();
        scheduler.runFor(settlingNanos() - 1);
        assertThat(gets.settled()).isFalse();
        gets.viewChanged();
        scheduler.runFor(settlingNanos() - 1);
        assertThat(gets.settled()).as("a second change restarted the window").isFalse();
        scheduler.runFor(1);
        assertThat(gets.settled()).isTrue();
    }

    @Test
    void aStoreThatRecoveredFromAFaultStaysUnsettledForTheWindow() {
        healthy = false;
        assertThat(gets.settled()).isFalse();
        scheduler.runFor(settlingNanos() * 3);
        assertThat(gets.settled()).as("still in the fault").isFalse();
        healthy = true;
        assertThat(gets.settled()).as("the copies it refused are not here yet").isFalse();
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled()).isTrue();
    }
}
