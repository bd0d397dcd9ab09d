package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.store.TestSlots;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A root's put and remove fan-out, built from its parts without a {@link Node} or a network: the outbox sends into a
 * recording list, replicas' answers are fed back by hand, and time moves only when the test runs the scheduler.
 */
class ReplicaCoordinatorTest {

    // These puts come from made-up gateways, unsigned: what a root does with origins is OriginMeterTest's.
    private static final NodeConfig UNSIGNED_PUTS = NodeConfig.defaults().withReplicas(4, 2).toBuilder()
            .origin(OriginLimits.NONE).build();

    private static final long SECOND = 1_000_000_000L;
    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    private static final Bytes SECRET = Bytes.utf8("s");
    /** Where the store holds the value "v" put with {@link #SECRET}, and the tombstone of its remove. */
    private static final Bytes V_SLOT = TestSlots.of(KEY, Bytes.utf8("v"), SECRET);

    private final SentLog log = new SentLog();
    private final List<Sent> sent = log.all();
    private VirtualScheduler scheduler;
    private MemoryStore store;
    private Outbox outbox;
    private ReplicaCoordinator coordinator;
    /** The replicas the coordinator told repair it owes a copy. */
    private final List<Contact> owed = new ArrayList<>();
    private Contact self;
    private Membership members;
    private final List<Contact> others = new ArrayList<>();
    private final Contact gateway = contact("0100000000000000000000000000000000000000", 9);

    private static Contact contact(String hex, int port) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + port, 4000));
    }

    @BeforeEach
    void buildRoot() {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        store = new MemoryStore(scheduler::epochMillis);
        self = contact("8000000000000000000000000000000000000001", 1);
        NodeConfig config = UNSIGNED_PUTS;
        HandBuiltNode node = HandBuiltNode.of(self, config, scheduler, NodeListener.NONE, log);
        members = node.members();
        outbox = node.outbox();
        LocalReplica replica = new LocalReplica(config, store, scheduler, node.ctx().tag());
        coordinator = new ReplicaCoordinator(node.ctx(), members, replica, PlantedBugs.NONE, owed::add,
                new Watchers(node.ctx(), members, replica));
        for (String hex : List.of("8000000000000000000000000000000000000002", "7fffffffffffffffffffffffffffffffffffffff",
                "8000000000000000000000000000000000000003")) {
            Contact c = contact(hex, 2 + others.size());
            others.add(c);
            members.heard(c);
        }
    }

    private PutRequest put(String value) {
        return new PutRequest(KEY, Bytes.utf8(value), 600, scheduler.epochMillis() + 600_000,
                SecretBinding.of(SECRET, KEY, Bytes.utf8(value).sha256()), gateway, 77, 3);
    }

    private <T extends Message> T replyToGateway(Class<T> type) {
        List<Sent> replies = log.sentTo(gateway, type);
        assertThat(replies).hasSize(1);
        assertThat(replies.get(0).envelope().requestId()).isEqualTo(77);
        return type.cast(replies.get(0).envelope().body());
    }

    private void answer(Contact from, Class<? extends Message> asked, Message reply) {
        long id = log.sentTo(from, asked).get(0).envelope().requestId();
        outbox.onReply(new Envelope(from, id, reply));
    }

    @Test
    void aPutIsStoredHereAskedOfEveryOtherReplicaAndAcknowledgedAtW() {
        coordinator.put(put("v"), false);

        assertThat(store.read(KEY, V_SLOT)).isPresent();
        for (Contact c : others) {
            assertThat(log.sentTo(c, StoreReplicas.class)).as("asked %s", c).hasSize(1);
            StoreReplicas copy = (StoreReplicas) log.sentTo(c, StoreReplicas.class).get(0).envelope().body();
            assertThat(copy.records().get(0).binding()).as("a copy carries the binding, never the secret")
                    .isEqualTo(put("v").binding());
            assertThat(copy.records().get(0).secret()).isEqualTo(Bytes.EMPTY);
        }
        assertThat(log.sentTo(gateway, PutReply.class)).as("one copy of two").isEmpty();

        answer(others.get(0), StoreReplicas.class, new StoreAck(1));
        PutReply reply = replyToGateway(PutReply.class);
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.replicas()).isEqualTo(2);

        answer(others.get(1), StoreReplicas.class, new StoreAck(1));
        assertThat(log.sentTo(gateway, PutReply.class)).as("decided once").hasSize(1);
    }

    /**
     * A hop that re-routes a put past a late next hop still counts the late one (PatientRequest), so a put can reach
     * its root twice, seconds apart. Stamped at the root, the second arrival stretched every copy by that much (the
     * later expiry wins between two copies): the fault simulator's rule 3 found values served 0.7 s past expiry + S.
     */
    @Test
    void aPutThatReachesItsRootTwiceKeepsTheExpiryItsGatewaySet() {
        PutRequest p = put("v");
        coordinator.put(p, false);
        scheduler.runFor(5 * SECOND);
        coordinator.put(p, false);
        scheduler.runFor(SECOND);

        assertThat(store.read(KEY, V_SLOT).orElseThrow().expiresAtMillis())
                .isEqualTo(p.expiresAtMillis());
        for (Contact c : others) {
            for (Sent copy : log.sentTo(c, StoreReplicas.class)) {
                assertThat(((StoreReplicas) copy.envelope().body()).records().get(0).expiresAtMillis())
                        .as("copy to %s", c).isEqualTo(p.expiresAtMillis());
            }
        }
    }

    /**
     * A root whose clock is ahead of the gateway's by more than the put's TTL holds a copy it judges expired, which it
     * cannot serve: it counts it no more than a replica counts such a pushed copy (the fault simulator's rule 1a, a
     * clock stepped an hour ahead on the root of a put with an hour's TTL: acknowledged with one copy).
     */
    @Test
    void aRootDoesNotCountItsOwnCopyWhenItsClockHasPassedTheStamp() {
        PutRequest stale = new PutRequest(KEY, Bytes.utf8("v"), 600, scheduler.epochMillis() - 1,
                SecretBinding.of(SECRET, KEY, Bytes.utf8("v").sha256()), gateway, 77, 3);
        coordinator.put(stale, false);
        scheduler.runFor(SECOND / 10);
        assertThat(log.sentTo(gateway, PutAck.class)).as("no ack for its own copy").isEmpty();

        answer(others.get(0), StoreReplicas.class, new StoreAck(1));
        assertThat(log.sentTo(gateway, PutReply.class)).as("one copy that counts, of two").isEmpty();
        answer(others.get(1), StoreReplicas.class, new StoreAck(1));
        assertThat(replyToGateway(PutReply.class).status()).isEqualTo(Status.OK);
    }

    @Test
    void aPutWhoseReplicasRefuseOrTimeOutIsUnavailableWithTheCountItGot() {
        coordinator.put(put("v"), false);
        answer(others.get(0), StoreReplicas.class, new StoreAck(0));

        scheduler.runFor(10 * SECOND);

        PutReply reply = replyToGateway(PutReply.class);
        assertThat(reply.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(reply.replicas()).isEqualTo(1);
        assertThat(reply.detail()).isEqualTo("only 1 of 2 replicas acknowledged");
    }

    @Test
    void aCopyLatePastItsRtoIsSentAgainAndAReplicaThatNeverAnswersIsOwedRepair() {
        coordinator.put(put("v"), false);
        answer(others.get(0), StoreReplicas.class, new StoreAck(1));
        assertThat(replyToGateway(PutReply.class).status()).isEqualTo(Status.OK);

        scheduler.runFor(2 * SECOND);
        assertThat(log.sentTo(others.get(0), StoreReplicas.class)).as("answered in time: sent once").hasSize(1);
        assertThat(log.sentTo(others.get(1), StoreReplicas.class)).as("late: sent again").hasSize(2);
        assertThat(owed).as("nothing owed before the copy's timeout").isEmpty();

        answer(others.get(2), StoreReplicas.class, new StoreAck(1));
        scheduler.runFor(10 * SECOND);

        assertThat(owed).as("owed: the one that never answered").containsExactly(others.get(1));
    }

    @Test
    void aLateCopyIsSentAgainUntilTheRequestTimeoutAndTheFirstAnswerToAnyOfThemCounts() {
        coordinator.put(put("v"), false);
        scheduler.runFor(SECOND + SECOND / 2);
        List<Sent> copies = log.sentTo(others.get(1), StoreReplicas.class);
        assertThat(copies).as("late past its RTO (1 s before any sample): sent again").hasSize(2);
        assertThat(log.sentTo(gateway, PutReply.class)).as("only this node's own copy so far").isEmpty();

        // The first copy was lost; its resend got there.
        outbox.onReply(new Envelope(others.get(1), copies.get(1).envelope().requestId(), new StoreAck(1)));
        PutReply reply = replyToGateway(PutReply.class);
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.replicas()).as("the resend's answer counts toward W").isEqualTo(2);

        scheduler.runFor(10 * SECOND);
        assertThat(log.sentTo(others.get(1), StoreReplicas.class)).as("answered: not sent again").hasSize(2);
        assertThat(log.sentTo(others.get(0), StoreReplicas.class).size()).as("never answered: sent again, more than once")
                .isBetween(3, 1 + 3);
        assertThat(owed).as("owed: those no copy reached, not the one a resend reached")
                .containsExactlyInAnyOrder(others.get(0), others.get(2));
    }

    /**
     * With a fast replica's short RTO, three resends were spent 2.4 s before the request timeout (fault simulator,
     * seed 584 of 51–1,050: all four copies were dropped at 7.7% loss). The copy goes again until the timeout instead.
     */
    @Test
    void aCopyNeverAnsweredGoesAgainUntilTheRequestTimeoutAtDoublingIntervalsFromAShortRto() {
        Contact lossy = others.get(1);
        for (int i = 0; i < 20; i++) {
            members.sampleRtt(lossy.id(), 5_000_000L);
        }
        long rto = members.rtoNanos(lossy.id());
        assertThat(rto).as("a fast replica's RTO").isLessThan(SECOND / 4);
        coordinator.put(put("v"), false);
        answer(others.get(0), StoreReplicas.class, new StoreAck(1));
        assertThat(replyToGateway(PutReply.class).status()).isEqualTo(Status.OK);

        long timeout = NodeConfig.defaults().requestTimeoutMillis() * 1_000_000L;
        scheduler.runFor(timeout - 1);
        int copies = log.sentTo(lossy, StoreReplicas.class).size();
        // Doubling from the RTO (or more, backed off): at most one send per doubling that fits in the timeout.
        int doublings = 64 - Long.numberOfLeadingZeros(timeout / rto);
        assertThat(copies).as("sent until the timeout, more than the first and three resends")
                .isGreaterThan(4).isLessThanOrEqualTo(1 + doublings + 1);
        assertThat(owed).as("not owed before the timeout").doesNotContain(lossy);

        scheduler.runFor(10 * SECOND);
        assertThat(log.sentTo(lossy, StoreReplicas.class)).as("nothing after the timeout").hasSize(copies);
        assertThat(owed).as("owed once no copy was answered in time").contains(lossy);
    }

    @Test
    void aReplicaWhoseStoreIsFullIsOwedRepair() {
        coordinator.put(put("v"), false);
        answer(others.get(0), StoreReplicas.class, new ErrorReply(Status.STORAGE_FULL, "disk full"));

        assertThat(owed).containsExactly(others.get(0));
    }

    @Test
    void aPutThatMeetsItsOwnRemoveIsRefusedAndAskedOfNobody() {
        store.write(StoredRecord.tombstone(KEY, Bytes.utf8("v").sha256(), scheduler.epochMillis() + 60_000,
                SECRET));

        coordinator.put(put("v"), false);

        assertThat(replyToGateway(PutReply.class).status()).isEqualTo(Status.FORBIDDEN);
        assertThat(sent).hasSize(1);
    }

    @Test
    void aRemoveAsksEveryReplicaAndAnswersOnceAllHaveAnswered() {
        coordinator.put(put("v"), false);
        sent.clear();

        coordinator.remove(new RemoveRequest(KEY, Bytes.utf8("v").sha256(), SECRET, 60, gateway, 77, 2));

        assertThat(store.read(KEY, V_SLOT)).get().extracting(StoredRecord::tombstone)
                .isEqualTo(true);
        answer(others.get(0), RemoveReplica.class, new RemoveReplicaReply(Status.NOT_FOUND));
        answer(others.get(1), RemoveReplica.class, new RemoveReplicaReply(Status.FORBIDDEN));
        assertThat(log.sentTo(gateway, RemoveReply.class)).as("one replica has not answered").isEmpty();

        scheduler.runFor(10 * SECOND);

        assertThat(replyToGateway(RemoveReply.class).status()).as("removed here").isEqualTo(Status.OK);
    }

    /**
     * A replica that declines to look (views differ) answers RemoveReplicaReply(UNAVAILABLE), which outranks another
     * replica's NOT_FOUND: it may hold the value. One that does not serve the namespace answers an ErrorReply
     * UNAVAILABLE, which is no answer and does not. The remove is of a value nobody holds (the root's own: NOT_FOUND).
     */
    @Test
    void aReplicaThatDeclinedToLookMakesTheRemoveUnavailable() {
        assertThat(removeOfAbsentFirstAnswered(new RemoveReplicaReply(Status.UNAVAILABLE)))
                .isEqualTo(Status.UNAVAILABLE);
    }

    @Test
    void aReplicaThatServesNoNamespaceLeavesTheRemoveNotFound() {
        assertThat(removeOfAbsentFirstAnswered(new ErrorReply(Status.UNAVAILABLE, "namespace not served")))
                .isEqualTo(Status.NOT_FOUND);
    }

    private Status removeOfAbsentFirstAnswered(Message first) {
        coordinator.remove(new RemoveRequest(KEY, Bytes.utf8("absent").sha256(), SECRET, 60, gateway, 77, 2));
        answer(others.get(0), RemoveReplica.class, first);
        answer(others.get(1), RemoveReplica.class, new RemoveReplicaReply(Status.NOT_FOUND));
        answer(others.get(2), RemoveReplica.class, new RemoveReplicaReply(Status.NOT_FOUND));
        scheduler.runFor(10 * SECOND);
        return replyToGateway(RemoveReply.class).status();
    }

    @Test
    void aRemoveTallySaysForbiddenOverNotFoundOverUnavailable() {
        assertThat(RemoveTally.combine(new Status[] {Status.TIMEOUT, Status.NOT_FOUND, Status.FORBIDDEN}))
                .isEqualTo(Status.FORBIDDEN);
        assertThat(RemoveTally.combine(new Status[] {Status.TIMEOUT, Status.NOT_FOUND})).isEqualTo(Status.NOT_FOUND);
        // A replica that declined to look (views differ) may hold the value: retry, not "nothing there".
        assertThat(RemoveTally.combine(new Status[] {Status.UNAVAILABLE, Status.NOT_FOUND}))
                .isEqualTo(Status.UNAVAILABLE);
        assertThat(RemoveTally.combine(new Status[] {Status.UNAVAILABLE, Status.FORBIDDEN}))
                .isEqualTo(Status.FORBIDDEN);
        assertThat(RemoveTally.combine(new Status[] {Status.TIMEOUT, Status.INTERNAL})).isEqualTo(Status.UNAVAILABLE);
        assertThat(RemoveTally.combine(new Status[] {Status.FORBIDDEN, Status.OK})).isEqualTo(Status.OK);
    }
}
