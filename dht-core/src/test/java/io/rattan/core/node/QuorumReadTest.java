package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A quorum get at the replica that serves it, on a {@link ReplicaRig}: the outbox sends into a recording list, the
 * other replicas' answers are fed back by hand, and time moves only when the test runs the scheduler. The replica set
 * of the key is this node and three others, closest first: A, B, C.
 */
class QuorumReadTest extends ReplicaRig {

    private static final long MILLI = 1_000_000L;

    private final List<Boolean> partials = new ArrayList<>();
    private int withheld;

    QuorumReadTest() {
        // Leaf-set changes are not told to the get path, as this test was built; a quorum get reads R replicas anyway.
        super(false, 60_000);
    }

    @Override
    NodeListener listener() {
        return new NodeListener() {
            @Override
            public void quorumReadDone(boolean partial, int recordsRepaired) {
                partials.add(partial);
            }

            @Override
            public void repairTombstonesWithheld(int n) {
                withheld += n;
            }
        };
    }

    private GetRequest quorumGet(int r) {
        return new GetRequest(KEY, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY, gateway, 77, 2, false, Cost.ZERO, r);
    }


    private void answer(Contact from, Message reply) {
        long id = log.sentTo(from, ReplicaRead.class).get(0).envelope().requestId();
        outbox.onReply(new Envelope(from, id, reply));
    }

    private GetReply replyToGateway() {
        List<Sent> replies = log.sentTo(gateway, GetReply.class);
        assertThat(replies).as("one answer to the gateway").hasSize(1);
        assertThat(replies.get(0).envelope().requestId()).isEqualTo(77);
        return (GetReply) replies.get(0).envelope().body();
    }

    private static List<Bytes> values(GetReply r) {
        return r.values().stream().map(ValueEntry::value).collect(Collectors.toList());
    }

    @Test
    void aQuorumReadAsksTheClosestOthersMergesAndRepairsWhatDiffers() {
        StoredRecord x = value("x");
        StoredRecord y = value("y");
        memory.write(x);

        gets.serve(quorumGet(3));

        // R = 3: this node and the two others closest to the key.
        assertThat(log.sentTo(a, ReplicaRead.class)).hasSize(1);
        assertThat(log.sentTo(b, ReplicaRead.class)).hasSize(1);
        assertThat(log.sentTo(c, ReplicaRead.class)).isEmpty();
        answer(a, new ReplicaReadReply(List.of(wire(x), wire(y)), false));
        assertThat(log.sentTo(gateway, GetReply.class)).as("two of three answered").isEmpty();
        answer(b, new ReplicaReadReply(List.of(), false));

        GetReply reply = replyToGateway();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.replicasRead()).isEqualTo(3);
        assertThat(values(reply)).containsExactlyInAnyOrder(x.value(), y.value());
        assertThat(reply.cost().messages()).as("2 reads, 2 answers, 1 repair, the reply").isEqualTo(6);
        // This node lacked y: stored now. B lacked both: sent them as a put's copies are sent. A agreed.
        assertThat(memory.read(KEY, y.slot())).isPresent();
        List<Sent> repairs = log.sentTo(b, StoreReplicas.class);
        assertThat(repairs).hasSize(1);
        assertThat(((StoreReplicas) repairs.get(0).envelope().body()).records())
                .extracting(ReplicaRecord::valueHash).containsExactlyInAnyOrder(x.valueHash(), y.valueHash());
        assertThat(log.sentTo(a, StoreReplicas.class)).isEmpty();
        assertThat(partials).containsExactly(false);
    }

    @Test
    void aRemoveSeenByOneReplicaHidesTheValueAndReachesTheOthers() {
        StoredRecord x = value("x");
        memory.write(x);
        StoredRecord removed = StoredRecord.tombstone(KEY, x.valueHash(), scheduler.epochMillis() + 120_000,
                SECRET);

        gets.serve(quorumGet(3));
        answer(a, new ReplicaReadReply(List.of(wire(removed)), false));
        answer(b, new ReplicaReadReply(List.of(wire(x)), false));

        assertThat(replyToGateway().values()).isEmpty();
        assertThat(memory.read(KEY, x.slot())).get().extracting(StoredRecord::tombstone).isEqualTo(true);
        assertThat(((StoreReplicas) log.sentTo(b, StoreReplicas.class).get(0).envelope().body()).records())
                .extracting(ReplicaRecord::tombstone).containsExactly(true);
    }

    @Test
    void aLateReplicaIsReplacedByTheNextAndStillCounts() {
        memory.write(value("x"));

        gets.serve(quorumGet(3));
        answer(a, new ReplicaReadReply(List.of(), false));
        // B's RTO (1 s before any sample) passes: C is asked in its place.
        scheduler.runFor(1_100 * MILLI);
        assertThat(log.sentTo(c, ReplicaRead.class)).hasSize(1);
        answer(c, new ReplicaReadReply(List.of(), false));

        GetReply reply = replyToGateway();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.replicasRead()).isEqualTo(3);
    }

    @Test
    void aLateReplicaIsAskedAgainAndItsAnswerToTheSecondAskCounts() {
        StoredRecord x = value("x");

        gets.serve(quorumGet(3));
        answer(a, new ReplicaReadReply(List.of(), false));
        // B's RTO passes with no answer: its request, or the answer, may have been lost. B is asked again, C too.
        scheduler.runFor(1_100 * MILLI);
        List<Sent> toB = log.sentTo(b, ReplicaRead.class);
        assertThat(toB).as("B asked again").hasSize(2);
        assertThat(log.sentTo(c, ReplicaRead.class)).hasSize(1);
        outbox.onReply(new Envelope(b, toB.get(1).envelope().requestId(),
                new ReplicaReadReply(List.of(wire(x)), false)));

        GetReply reply = replyToGateway();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.replicasRead()).isEqualTo(3);
        assertThat(values(reply)).containsExactly(x.value());
    }

    @Test
    void aRefusingReplicaIsReplacedAtOnce() {
        gets.serve(quorumGet(3));
        answer(a, new ErrorReply(Status.FORBIDDEN, "not a replica here"));

        assertThat(log.sentTo(c, ReplicaRead.class)).hasSize(1);
        answer(b, new ReplicaReadReply(List.of(), false));
        answer(c, new ReplicaReadReply(List.of(), false));
        assertThat(replyToGateway().status()).isEqualTo(Status.OK);
    }

    @Test
    void tooFewReplicasByTheDeadlineIsAPartialAnswerWithWhatWasReached() {
        StoredRecord x = value("x");
        StoredRecord y = value("y");
        memory.write(x);

        gets.serve(quorumGet(4));
        answer(a, new ReplicaReadReply(List.of(wire(y)), false));
        // B and C never answer; the read gives up at half the request timeout (2.5 s).
        scheduler.runFor(2_400 * MILLI);
        assertThat(log.sentTo(gateway, GetReply.class)).isEmpty();
        scheduler.runFor(200 * MILLI);

        GetReply reply = replyToGateway();
        assertThat(reply.status()).isEqualTo(Status.PARTIAL);
        assertThat(reply.replicasRead()).isEqualTo(2);
        assertThat(reply.detail()).isEqualTo("2 of the 4 replicas asked for answered");
        assertThat(values(reply)).containsExactlyInAnyOrder(x.value(), y.value());
        assertThat(partials).containsExactly(true);
    }

    @Test
    void everyReplicaAskedAndRefusedEndsTheReadAtOnce() {
        gets.serve(quorumGet(4));
        for (Contact peer : List.of(a, b, c)) {
            answer(peer, new ErrorReply(Status.IO_ERROR, "disk"));
        }

        GetReply reply = replyToGateway();
        assertThat(reply.status()).isEqualTo(Status.PARTIAL);
        assertThat(reply.replicasRead()).isEqualTo(1);
    }

    @Test
    void aReplicaAnswersAReadWithItsTombstonesButOnlyToAReplicaOfTheKey() {
        StoredRecord x = value("x");
        StoredRecord removed = StoredRecord.tombstone(KEY, value("gone").valueHash(),
                scheduler.epochMillis() + 1_000, SECRET);
        memory.write(x);
        memory.write(removed);
        // Two more leaf-set members: D the next beyond the k = 4 replicas, E beyond it (no replica, nor the next).
        Contact d = contact("8000000000000000000000000000000000000010", 5);
        Contact e = contact("8000000000000000000000000000000000000020", 6);
        members.heard(d);
        members.heard(e);

        Message toMember = gets.answerReplicaRead(a, new ReplicaRead(KEY, Bytes.EMPTY, 0), secrets);
        Message toNext = gets.answerReplicaRead(d, new ReplicaRead(KEY, Bytes.EMPTY, 0), secrets);
        Message toFarMember = gets.answerReplicaRead(e, new ReplicaRead(KEY, Bytes.EMPTY, 0), secrets);
        Message toStranger = gets.answerReplicaRead(contact("0000000000000000000000000000000000000007", 7),
                new ReplicaRead(KEY, Bytes.EMPTY, 0), secrets);

        assertThat(toMember).isInstanceOf(ReplicaReadReply.class);
        assertThat(((ReplicaReadReply) toMember).records()).extracting(ReplicaRecord::tombstone)
                .containsExactlyInAnyOrder(false, true);
        assertThat(((ReplicaReadReply) toMember).more()).isFalse();
        assertThat(((ReplicaReadReply) toNext).records()).hasSize(2);
        // The tombstone carries the remove's secret: a member that is no replica of the key is told its view differs.
        assertThat(toFarMember).isEqualTo(new ErrorReply(Status.UNAVAILABLE, "not a replica of " + KEY.shortHex()
                + " in this node's view, which holds a remove's secret for it"));
        assertThat(withheld).isEqualTo(1);
        assertThat(toStranger).isEqualTo(new ErrorReply(Status.FORBIDDEN, "not a replica of "
                + KEY.shortHex() + " in this node's view"));
        Message page = gets.answerReplicaRead(a, new ReplicaRead(KEY, Bytes.EMPTY, 1), secrets);
        assertThat(((ReplicaReadReply) page).records()).hasSize(1);
        assertThat(((ReplicaReadReply) page).more()).isTrue();
        // Values alone carry no secret: once the tombstone expired, the far member reads them.
        scheduler.runFor(2_000 * MILLI);
        assertThat(gets.answerReplicaRead(e, new ReplicaRead(KEY, Bytes.EMPTY, 0), secrets))
                .isEqualTo(new ReplicaReadReply(List.of(wire(x)), false));
    }

    @Test
    void aForgedRecordInAnAnswerIsDroppedNotServedOrSpread() {
        StoredRecord x = value("x");
        ReplicaRecord forged = new ReplicaRecord(KEY, x.valueHash(), Bytes.utf8("not x"), x.expiresAtMillis(),
                x.binding(), Bytes.EMPTY, false);

        gets.serve(quorumGet(3));
        answer(a, new ReplicaReadReply(List.of(forged), false));
        answer(b, new ReplicaReadReply(List.of(), false));

        assertThat(replyToGateway().values()).isEmpty();
        assertThat(log.sentTo(b, StoreReplicas.class)).isEmpty();
        assertThat(memory.read(KEY, x.slot())).isEmpty();
        assertThat(memory.size()).isZero();
    }
}
