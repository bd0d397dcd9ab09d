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
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replica whose store is in a fault (a full disk) refused every copy since: the fault simulator found roots with a
 * full disk answering gets without the puts made meanwhile. Built from its parts without a network: the outbox sends
 * into a list. This node S (0x80…01) is the root of KEY; A (0x80…02) is the next replica.
 */
class GetAnswersStoreFaultTest {

    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    private static final Bytes SECRET = Bytes.utf8("s");

    private record Sent(Address to, Envelope envelope) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private VirtualScheduler scheduler;
    private MemoryStore memory;
    private boolean healthy = true;
    private Outbox outbox;
    private GetAnswers gets;
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
        NodeConfig config = NodeConfig.defaults().withReplicas(4, 2);
        NodeContext ctx = new NodeContext(self, config, scheduler, scheduler, new SplittableRandom(1),
                NodeListener.NONE);
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
        return StoredRecord.value(KEY, Bytes.utf8(v), scheduler.epochMillis() + 60_000,
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

    @Test
    void aHealthyRootAnswersFromItsOwnStore() {
        memory.write(value("old"));
        gets.serve(get());

        assertThat(sent(ReplicaRead.class)).isEmpty();
        assertThat(sent(GetReply.class)).hasSize(1);
    }

    @Test
    void aRootWhoseStoreIsInAFaultMergesWithTheNextReplica() {
        StoredRecord old = value("old");
        StoredRecord missed = value("put while the disk was full");
        memory.write(old);
        healthy = false;

        assertThat(gets.answersGet(KEY)).as("the root still takes the get").isTrue();
        gets.serve(get());

        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("one other replica read, the closest").hasSize(1);
        assertThat(reads.get(0).to()).isEqualTo(a.address());
        outbox.onReply(new Envelope(a, reads.get(0).envelope().requestId(),
                new ReplicaReadReply(List.of(wire(old), wire(missed)), false)));
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.values()).extracting(v -> v.value()).containsExactlyInAnyOrder(Bytes.utf8("old"),
                Bytes.utf8("put while the disk was full"));
    }

    @Test
    void aNonRootReplicaWhoseStoreIsInAFaultPassesTheGetOn() {
        // 0x80…03: A (0x80…02) and 0x80…04 are closer than this node, which is still one of the 4 replicas.
        Id other = Id.fromHex("8000000000000000000000000000000000000003");
        memory.write(StoredRecord.value(other, Bytes.utf8("v"), scheduler.epochMillis() + 60_000,
                SecretBinding.of(SECRET, other, Bytes.utf8("v").sha256())));
        assertThat(gets.answersGet(other)).isTrue();

        healthy = false;

        assertThat(gets.answersGet(other)).isFalse();
    }
}
