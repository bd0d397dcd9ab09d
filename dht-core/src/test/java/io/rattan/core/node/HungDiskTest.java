package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.env.RequestIds;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A disk whose sync never returns (issue 17): the store here keeps every {@code whenDurable} action and never runs it
 * unless the test does, as a WAL syncer stuck in {@code fdatasync} would. A put's own copy and a replica's
 * acknowledgement give up after half the request timeout ({@link DurableWait}) with the typed I/O status, are counted,
 * and a sync that returns afterwards changes nothing. Virtual time.
 */
class HungDiskTest {

    // These puts come from made-up gateways, unsigned: what a root does with origins is OriginMeterTest's.
    private static final NodeConfig UNSIGNED_PUTS = NodeConfig.defaults().withReplicas(4, 2).toBuilder()
            .origin(OriginLimits.NONE).build();

    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    private static final long MS = 1_000_000L;

    /** A store in memory whose syncs hang: durable actions wait in a list. */
    private static final class HungStore extends ForwardingStore {
        final List<Runnable> waiting = new ArrayList<>();

        HungStore(MemoryStore store) {
            super(store);
        }

        @Override
        public void whenDurable(Runnable action) {
            waiting.add(action);
        }

        /** The disk returns at last: every action waiting runs. */
        void syncReturns() {
            List<Runnable> actions = List.copyOf(waiting);
            waiting.clear();
            actions.forEach(Runnable::run);
        }
    }

    /** Counts what a node reports of its durable waits. */
    private static final class GaveUp implements NodeListener {
        int ownCopies;
        int copies;

        @Override
        public void durableWaitGaveUp(boolean ownCopy) {
            if (ownCopy) {
                ownCopies++;
            } else {
                copies++;
            }
        }
    }

    private final SentLog log = new SentLog();
    private final List<Sent> sent = log.all();
    private final List<Contact> others = new ArrayList<>();
    private final Contact gateway = contact("0100000000000000000000000000000000000000", 9);
    private final GaveUp gaveUp = new GaveUp();
    private final NodeConfig config = UNSIGNED_PUTS;
    private final long bound = DurableWait.boundMillis(config);
    private VirtualScheduler scheduler;
    private HungStore store;
    private Membership members;
    private Outbox outbox;

    private static Contact contact(String hex, int port) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + port, 4000));
    }

    @BeforeEach
    void hangTheDisk() {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        store = new HungStore(new MemoryStore(scheduler::epochMillis));
    }

    /**
     * The put path of node 80…01 built from its parts on the hung store: its coordinator, with {@link #members} and
     * {@link #outbox} (sending into {@link #sent}) set for the test to use.
     */
    private ReplicaCoordinator coordinatorOnTheHungDisk() {
        Contact self = contact("8000000000000000000000000000000000000001", 1);
        HandBuiltNode node = HandBuiltNode.of(self, config, scheduler, gaveUp, log);
        members = node.members();
        outbox = node.outbox();
        return new ReplicaCoordinator(node.ctx(), members, new LocalReplica(config, store, scheduler,
                node.ctx().tag()));
    }

    @Test
    void theBoundIsHalfTheRequestTimeout() {
        assertThat(bound).isEqualTo(config.requestTimeoutMillis() / 2).isPositive();
    }

    @Test
    void aPutWhoseOwnCopyNeverSyncsFailsAsAnIoErrorAtTheBoundAndALateSyncChangesNothing() {
        ReplicaCoordinator coordinator = coordinatorOnTheHungDisk();
        for (String hex : List.of("8000000000000000000000000000000000000002", "7fffffffffffffffffffffffffffffffffffffff",
                "8000000000000000000000000000000000000003")) {
            Contact c = contact(hex, 2 + others.size());
            others.add(c);
            members.heard(c);
        }
        coordinator.put(put(), false);
        assertThat(store.waiting).as("the own copy waits for its sync").hasSize(1);
        // One peer stores it, two refuse: W = 2 hangs on the own copy.
        long[] ids = others.stream().mapToLong(c -> log.sentTo(c, StoreReplicas.class).get(0).envelope().requestId())
                .toArray();
        outbox.onReply(new Envelope(others.get(0), ids[0], new StoreAck(1)));
        outbox.onReply(new Envelope(others.get(1), ids[1], new StoreAck(0)));
        outbox.onReply(new Envelope(others.get(2), ids[2], new StoreAck(0)));

        scheduler.runFor((bound - 1) * MS);
        assertThat(log.sentTo(gateway, PutReply.class)).as("still waiting just before the bound").isEmpty();
        assertThat(gaveUp.ownCopies).isZero();

        scheduler.runFor(2 * MS);
        List<Sent> replies = log.sentTo(gateway, PutReply.class);
        assertThat(replies).as("answered at the bound").hasSize(1);
        PutReply reply = (PutReply) replies.get(0).envelope().body();
        assertThat(reply.status()).as("a 503 with Retry-After at the gateway").isEqualTo(Status.IO_ERROR);
        assertThat(reply.replicas()).isEqualTo(1);
        assertThat(gaveUp.ownCopies).as("counted").isEqualTo(1);

        store.syncReturns();
        scheduler.runFor(10_000 * MS);
        assertThat(log.sentTo(gateway, PutReply.class)).as("the late sync answers nothing more").hasSize(1);
        assertThat(gaveUp.ownCopies).isEqualTo(1);
    }

    @Test
    void aPutWhoseOwnCopySyncsInTimeIsAcknowledgedAndNothingGivesUpLater() {
        ReplicaCoordinator coordinator = coordinatorOnTheHungDisk();
        Contact peer = contact("8000000000000000000000000000000000000002", 2);
        members.heard(peer);
        coordinator.put(put(), false);
        outbox.onReply(new Envelope(peer, log.sentTo(peer, StoreReplicas.class).get(0).envelope().requestId(),
                new StoreAck(1)));
        scheduler.runFor((bound - 1) * MS);
        store.syncReturns();

        List<Sent> replies = log.sentTo(gateway, PutReply.class);
        assertThat(replies).hasSize(1);
        assertThat(((PutReply) replies.get(0).envelope().body()).status()).isEqualTo(Status.OK);
        scheduler.runFor(10_000 * MS);
        assertThat(gaveUp.ownCopies).as("the timer was cancelled").isZero();
        assertThat(log.sentTo(gateway, PutReply.class)).hasSize(1);
    }

    @Test
    void aReplicaWhoseCopiesNeverSyncAnswersIoErrorAtTheBoundAndALateSyncSendsNoAck() {
        Contact self = contact("8000000000000000000000000000000000000001", 1);
        Node node = new Node(config, self, new NodeEnv(scheduler, scheduler, log, store,
                new SplittableRandom(1), RequestIds.OWN_STREAM, NamespaceStores.inMemory(scheduler::epochMillis),
                NodeKey.draw(new SplittableRandom(1))), gaveUp);
        Contact root = contact("8000000000000000000000000000000000000002", 2);
        Bytes value = Bytes.utf8("copy");
        ReplicaRecord copy = new ReplicaRecord(KEY, value.sha256(), value, scheduler.epochMillis() + 600_000,
                Bytes.EMPTY, Bytes.EMPTY, false);
        node.receive(new Envelope(root, 41, new StoreReplicas(List.of(copy))));
        assertThat(store.waiting).as("the acknowledgement waits for the sync").hasSize(1);

        scheduler.runFor((bound - 1) * MS);
        assertThat(log.sentTo(root, StoreAck.class)).isEmpty();
        assertThat(log.sentTo(root, ErrorReply.class)).as("nothing yet").isEmpty();

        scheduler.runFor(2 * MS);
        List<Sent> errors = log.sentTo(root, ErrorReply.class);
        assertThat(errors).as("answered at the bound").hasSize(1);
        assertThat(errors.get(0).envelope().requestId()).isEqualTo(41);
        assertThat(((ErrorReply) errors.get(0).envelope().body()).status())
                .as("the root counts it as a failed copy").isEqualTo(Status.IO_ERROR);
        assertThat(gaveUp.copies).isEqualTo(1);

        store.syncReturns();
        assertThat(log.sentTo(root, StoreAck.class)).as("the late sync acknowledges nothing").isEmpty();
        assertThat(log.sentTo(root, ErrorReply.class)).hasSize(1);
    }

    private PutRequest put() {
        return new PutRequest(KEY, Bytes.utf8("v"), 600, scheduler.epochMillis() + 600_000, Bytes.EMPTY, gateway, 77,
                3);
    }
}
