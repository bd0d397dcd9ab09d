package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A root's put when its store works off the node's loop ({@link Store#submit}): the store here holds each submitted
 * task until the test lets it run, as a busy store thread would, or refuses it, as a full queue does.
 */
class OffLoopPutTest {

    // These puts come from made-up gateways, unsigned: what a root does with origins is OriginMeterTest's.
    private static final NodeConfig UNSIGNED_PUTS = NodeConfig.defaults().withReplicas(4, 2).toBuilder()
            .origin(OriginLimits.NONE).build();

    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");

    /** A store whose submitted tasks wait in a list, or are refused while {@code busy}. */
    private static final class HeldStore extends ForwardingStore {
        final List<Runnable> held = new ArrayList<>();
        boolean busy;

        HeldStore(MemoryStore store) {
            super(store);
        }

        @Override
        public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
            if (busy) {
                done.accept(null, new StoreException(StoreException.Kind.IO, "store busy", null));
                return;
            }
            held.add(() -> delegate.submit(work, done));
        }

        void runHeld() {
            List<Runnable> tasks = List.copyOf(held);
            held.clear();
            tasks.forEach(Runnable::run);
        }
    }

    private final SentLog log = new SentLog();
    private final List<Sent> sent = log.all();
    private final List<Contact> others = new ArrayList<>();
    private final Contact gateway = contact("0100000000000000000000000000000000000000", 9);
    private HeldStore store;
    private Outbox outbox;
    private ReplicaCoordinator coordinator;
    private VirtualScheduler scheduler;

    private static Contact contact(String hex, int port) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + port, 4000));
    }

    @BeforeEach
    void buildRoot() {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        store = new HeldStore(new MemoryStore(scheduler::epochMillis));
        Contact self = contact("8000000000000000000000000000000000000001", 1);
        NodeConfig config = UNSIGNED_PUTS;
        HandBuiltNode node = HandBuiltNode.of(self, config, scheduler, NodeListener.NONE, log);
        Membership members = node.members();
        outbox = node.outbox();
        coordinator = new ReplicaCoordinator(node.ctx(), members, new LocalReplica(config, store, scheduler,
                node.ctx().tag()));
        for (String hex : List.of("8000000000000000000000000000000000000002", "7fffffffffffffffffffffffffffffffffffffff",
                "8000000000000000000000000000000000000003")) {
            Contact c = contact(hex, 2 + others.size());
            others.add(c);
            members.heard(c);
        }
    }

    private PutRequest put(String value) {
        return new PutRequest(KEY, Bytes.utf8(value), 600, scheduler.epochMillis() + 600_000, Bytes.EMPTY, gateway,
                77, 3);
    }

    private void answer(Contact from, Message reply) {
        long id = log.sentTo(from, StoreReplicas.class).get(0).envelope().requestId();
        outbox.onReply(new Envelope(from, id, reply));
    }

    private PutReply reply() {
        List<Sent> replies = log.sentTo(gateway, PutReply.class);
        assertThat(replies).hasSize(1);
        return (PutReply) replies.get(0).envelope().body();
    }

    @Test
    void theRootAsksItsPeersOnlyOnceItsOwnWriteHasReturned() {
        coordinator.put(put("v"), false);

        assertThat(store.read(KEY, Bytes.utf8("v").sha256())).as("written later, off the loop").isEmpty();
        assertThat(sent).as("nothing sent while the own write waits").isEmpty();

        store.runHeld();
        assertThat(store.read(KEY, Bytes.utf8("v").sha256())).isPresent();
        for (Contact c : others) {
            assertThat(log.sentTo(c, StoreReplicas.class)).as("asked %s", c).hasSize(1);
        }
        answer(others.get(0), new StoreAck(1));
        assertThat(reply().status()).isEqualTo(Status.OK);
        assertThat(reply().replicas()).as("its own copy and one peer's").isEqualTo(2);
    }

    @Test
    void aStoreTooBusyForTheOwnCopyCountsAsAnIoFaultAndThePeersCanStillMakeW() {
        store.busy = true;
        coordinator.put(put("v"), false);

        assertThat(store.read(KEY, Bytes.utf8("v").sha256())).isEmpty();
        answer(others.get(0), new StoreAck(1));
        assertThat(log.sentTo(gateway, PutReply.class)).as("one copy of two").isEmpty();
        answer(others.get(1), new StoreAck(1));
        assertThat(reply().status()).isEqualTo(Status.OK);
        assertThat(reply().replicas()).isEqualTo(2);
    }

    @Test
    void aBusyStoreFailsThePutAsAnIoErrorWhenThePeersCannotMakeW() {
        store.busy = true;
        coordinator.put(put("v"), false);

        answer(others.get(0), new StoreAck(1));
        answer(others.get(1), new StoreAck(0));
        answer(others.get(2), new StoreAck(0));
        assertThat(reply().status()).as("a 503 with Retry-After at the gateway").isEqualTo(Status.IO_ERROR);
        assertThat(reply().replicas()).isEqualTo(1);
    }

    /** A swap that reaches a node outside the key's replicas (by its view) is refused there, not sent on as copies. */
    @Test
    void aSwapAtANodeOutsideTheReplicasIsRefused() {
        SentLog farLog = new SentLog();
        Contact far = contact("0000000000000000000000000000000000000005", 20);
        HandBuiltNode node = HandBuiltNode.of(far, UNSIGNED_PUTS, scheduler,
                NodeListener.NONE, farLog);
        for (int i = 0; i < 5; i++) {
            node.members().heard(contact("800000000000000000000000000000000000001" + i, 30 + i));
        }
        ReplicaCoordinator outside = new ReplicaCoordinator(node.ctx(), node.members(), new LocalReplica(
                NodeConfig.defaults(), store, scheduler, node.ctx().tag()));

        outside.put(swap(), false);

        List<Sent> replies = farLog.sentTo(gateway, PutReply.class);
        assertThat(replies).hasSize(1);
        assertThat(((PutReply) replies.get(0).envelope().body()).status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(farLog.all()).as("nothing but the refusal").hasSize(1);
        assertThat(store.held).as("no own write").isEmpty();
    }

    private PutRequest swap() {
        Bytes value = Bytes.utf8("v");
        long expiresAtSeconds = scheduler.epochMillis() / 1000 + 600;
        OwnerStamp stamp = OwnerSignatures.sign(Bytes.utf8("owner").sha256(), SignedOp.PUT,
                SignedBytes.DEFAULT_NAMESPACE, KEY, 1, 1, expiresAtSeconds, value.sha256());
        return new PutRequest(KEY, value, 600, expiresAtSeconds * 1000, Bytes.EMPTY, gateway, 77, 3, stamp,
                PutCondition.ABSENT, null);
    }

    /**
     * A swap is decided by the root's own write: when that fails (here a store too busy to take it; in the fault
     * simulator a full disk), the swap is refused and no peer is asked, or every swap racing from one version would
     * win at the peers alone.
     */
    @Test
    void aSwapTheRootCannotWriteIsRefusedAndNoPeerIsAsked() {
        store.busy = true;
        coordinator.put(swap(), false);
        for (Contact c : others) {
            for (Sent read : log.sentTo(c, ReplicaRead.class)) {
                outbox.onReply(new Envelope(c, read.envelope().requestId(), new ReplicaReadReply(List.of(), false)));
            }
        }

        assertThat(reply().status()).isEqualTo(Status.IO_ERROR);
        assertThat(reply().detail()).startsWith("swap not decided");
        for (Contact c : others) {
            assertThat(log.sentTo(c, StoreReplicas.class)).as("copies sent to %s", c).isEmpty();
        }
    }
}
