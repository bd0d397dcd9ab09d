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
 * without it (docs/testing.md, "Rule 1 traced"). For {@link NodeConfig#settlingMillis} (10 s)
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
    private Membership members;
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
        GetAnswers[] wired = new GetAnswers[1];
        // As Node wires it: every change of the leaf set is told to the get path.
        Membership members = new Membership(ctx, () -> wired[0].leafSetChanged());
        outbox = new Outbox(ctx, (to, e) -> sent.add(new Sent(to, e)), members::sampleRtt);
        ctx.attach(outbox);
        gets = new GetAnswers(ctx, members, new LocalReplica(config, store, scheduler, ctx.tag()));
        wired[0] = gets;
        this.members = members;
        a = contact("8000000000000000000000000000000000000002", 2);
        members.heard(a);
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffffd", 3));
        members.heard(contact("8000000000000000000000000000000000000004", 4));
        members.heard(contact("8000000000000000000000000000000000000005", 5));
        // The joins above are changes too: let them settle.
        scheduler.runFor(settlingNanos());
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
        return config.settlingMillis() * 1_000_000L;
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
        // A node joins among KEY's replicas (0x80…03 displaces 0x80…05): the replica set changed moments ago.
        members.heard(contact("8000000000000000000000000000000000000003", 6));
        scheduler.runFor(settlingNanos() / 2);
        assertThat(gets.settled(KEY)).isFalse();

        gets.serve(get());

        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("the other replicas read, closest first").hasSize(GetAnswers.UNSETTLED_READ_QUORUM - 1);
        assertThat(reads.get(0).to()).isEqualTo(a.address());
        assertThat(sent(GetReply.class)).as("no answer before the second replica's").isEmpty();
        outbox.onReply(new Envelope(a, reads.get(0).envelope().requestId(),
                new ReplicaReadReply(List.of(wire(old), wire(missed)), false)));
        for (int i = 1; i < reads.size(); i++) {
            Address to = reads.get(i).to();
            Contact peer = members.leafMembers().stream().filter(c -> c.address().equals(to)).findFirst().orElseThrow();
            outbox.onReply(new Envelope(peer, reads.get(i).envelope().requestId(), new ReplicaReadReply(List.of(),
                    false)));
        }
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
    void otherReplicasThatStaySilentLeaveTheAnswerOkWithItsOwnRecords() {
        // A get of consistency one: one replica would have answered OK alone, so late ones do not make it PARTIAL.
        StoredRecord old = value("old");
        memory.write(old);
        members.heard(contact("8000000000000000000000000000000000000003", 6));

        gets.serve(get());
        scheduler.runFor(config.requestTimeoutMillis() * 1_000_000L);

        assertThat(sent(ReplicaRead.class)).as("asked the others, and more when they were late")
                .hasSizeGreaterThanOrEqualTo(GetAnswers.UNSETTLED_READ_QUORUM - 1);
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.values()).extracting(v -> v.value()).containsExactly(old.value());
    }

    @Test
    void aSettledReplicaAnswersFromItsOwnStoreAlone() {
        memory.write(value("old"));
        members.heard(contact("8000000000000000000000000000000000000003", 6));
        scheduler.runFor(settlingNanos());

        gets.serve(get());

        assertThat(sent(ReplicaRead.class)).isEmpty();
        assertThat(sent(GetReply.class)).hasSize(1);
        assertThat(served).containsExactly(false);
    }

    @Test
    void aSuspicionAloneLeavesTheKeySettled() {
        // Slow nodes are suspected and cleared all the time: were that a change, views would never settle and every
        // get would read three replicas, waiting for the slowest (the slow-node experiments' tail).
        members.peerTimedOut(a);
        assertThat(members.usable(a)).as("suspected").isFalse();
        assertThat(gets.settled(KEY)).isTrue();
        members.heard(a);
        assertThat(gets.settled(KEY)).as("cleared").isTrue();
    }

    @Test
    void aChangeElsewhereInTheLeafSetLeavesTheKeySettled() {
        // Far on the other side: KEY's 4 closest stay this node, A, 0x80…04 and 0x80…05.
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffff0", 7));
        assertThat(gets.settled(KEY)).isTrue();
        Id near = Id.fromHex("7ffffffffffffffffffffffffffffffffffffff1");
        assertThat(gets.settled(near)).as("a key the new node is a replica of").isFalse();
    }

    @Test
    void aStartUnsettlesEveryKeyAndEachChangeRestartsTheWindow() {
        gets.allChanged();
        scheduler.runFor(settlingNanos() - 1);
        assertThat(gets.settled(KEY)).isFalse();
        members.heard(contact("8000000000000000000000000000000000000003", 6));
        scheduler.runFor(settlingNanos() - 1);
        assertThat(gets.settled(KEY)).as("the join restarted the window for KEY").isFalse();
        scheduler.runFor(1);
        assertThat(gets.settled(KEY)).isTrue();
    }

    @Test
    void aStoreThatRecoveredFromAFaultStaysUnsettledForTheWindow() {
        healthy = false;
        assertThat(gets.settled(KEY)).isFalse();
        scheduler.runFor(settlingNanos() * 3);
        assertThat(gets.settled(KEY)).as("still in the fault").isFalse();
        healthy = true;
        assertThat(gets.settled(KEY)).as("the copies it refused are not here yet").isFalse();
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled(KEY)).isTrue();
    }
}
