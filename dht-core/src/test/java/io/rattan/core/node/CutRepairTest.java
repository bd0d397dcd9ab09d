package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.testing.PlantedBugs;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A repair session toward a peer that a one-way cut kept from answering: each session fails at its wait, and the wait
 * doubles (5, 10, 20 s, {@link ScanTimeouts}), so when the cut heals a session may be waiting for the answer to a
 * request sent before, its next resend seconds away. The fault simulator traced a true replica that lacked a put 11.8 s
 * after such a heal and answered a get without it: the holder's session to it had waited 9 s past the heal (seed 593
 * of 51–2,050, docs/testing.md). Once the peer answers again, the session sends its request again at once
 * ({@link Repair#answersResumed}). On a {@link ReplicaRig}: this node holds a value of KEY, A is a fellow replica.
 */
class CutRepairTest extends ReplicaRig {

    CutRepairTest() {
        super(false, 600_000);
    }

    private List<Sent> digestsTo(Contact peer) {
        return log.sentTo(peer, RangeDigest.class);
    }

    private Repair repairHoldingOneValue() {
        memory.write(value("held here"));
        Repair repair = new Repair(ctx, members, new LocalReplica(config, memory, scheduler, ctx.tag()),
                PlantedBugs.NONE, new ViewReach(ctx, members, 0));
        repair.leafSetChanged();
        return repair;
    }

    @Test
    void aSessionWaitingOnAPeerThatAnswersAgainAfterACutSendsItsRequestAgainAtOnce() {
        Repair repair = repairHoldingOneValue();
        scheduler.runFor(300_000_000L);
        assertThat(digestsTo(a)).as("the session's first range digest, unanswered").hasSize(1);
        assertThat(digestsTo(b)).hasSize(1);
        scheduler.runFor(100_000_000L);
        assertThat(digestsTo(a)).as("its first resend is over a second away").hasSize(1);

        repair.answersResumed(a.id());

        assertThat(digestsTo(a)).as("sent again at once").hasSize(2);
        assertThat(digestsTo(b)).as("a session with another member waits on").hasSize(1);
    }

    /**
     * Once the peer has answered the session's first request (its sums of the whole arc, the longest scan a session
     * asks of it), a later request that goes unanswered is sent again after twice the peer's RTO, not after the quarter
     * of the 5 s wait that guards a peer whose scan time is not known yet: after a heal, a dropped digest held a
     * holder's session to a new replica 1.3 s that way, and the replica answered a get without the put (fault
     * simulator, seed 1902 of 51–2,050).
     */
    @Test
    void aDroppedDigestIsSentAgainSoonOnceThePeerHasAnsweredTheSession() {
        // Both measured fast: only the quarter of the wait can hold a resend back past a second.
        members.sampleRtt(a.id(), 10_000_000L);
        members.sampleRtt(b.id(), 10_000_000L);
        repairHoldingOneValue();
        scheduler.runFor(300_000_000L);
        Sent first = digestsTo(a).get(0);
        List<RangeSum> empty = Collections.nCopies(RangeSync.PARTS, new RangeSum(0, 0));
        outbox.onReply(new Envelope(a, first.envelope().requestId(), new RangeDigestReply(empty)));
        scheduler.runFor(10_000_000L);
        assertThat(log.sentTo(a, Digest.class)).as("the part holding the value, listed").hasSize(1);

        scheduler.runFor(1_000_000_000L);

        assertThat(log.sentTo(a, Digest.class)).as("its answer lost: sent again within a second").hasSizeGreaterThan(1);
        assertThat(digestsTo(b)).as("a peer that never answered still waits the quarter").hasSize(1);
    }

    /**
     * The copies a session streams wait on their own answers, and a page sent during the cut waits out a timeout that
     * grows with each try (5, 10, 15 s): the window's pages held every copy behind them back 12 s past a heal, the
     * puts made during the cut among them, and the peer, a true replica, answered a get without one (fault simulator,
     * seed 1864 of 1,301–2,050). Once the peer answers again, the pages awaiting answers go again at once.
     */
    @Test
    void copiesAwaitingAnswersFromAPeerThatAnswersAgainAfterACutAreSentAgainAtOnce() {
        Repair repair = repairHoldingOneValue();
        scheduler.runFor(300_000_000L);
        List<RangeSum> empty = Collections.nCopies(RangeSync.PARTS, new RangeSum(0, 0));
        outbox.onReply(new Envelope(a, digestsTo(a).get(0).envelope().requestId(), new RangeDigestReply(empty)));
        scheduler.runFor(10_000_000L);
        Sent listed = log.sentTo(a, Digest.class).get(0);
        Digest digest = (Digest) listed.envelope().body();
        outbox.onReply(new Envelope(a, listed.envelope().requestId(), new DigestWant(digest.entries())));
        scheduler.runFor(10_000_000L);
        assertThat(log.sentTo(a, StoreReplicas.class)).as("the copy it lacks, unanswered").hasSize(1);
        scheduler.runFor(1_000_000_000L);
        assertThat(log.sentTo(a, StoreReplicas.class)).as("its next try is seconds away").hasSize(1);

        repair.answersResumed(a.id());
        scheduler.runFor(10_000_000L);

        assertThat(log.sentTo(a, StoreReplicas.class)).as("sent again at once").hasSize(2);
        Sent early = log.sentTo(a, StoreReplicas.class).get(0);
        outbox.onReply(new Envelope(a, early.envelope().requestId(), new StoreAck(1)));
        scheduler.runFor(30_000_000_000L);
        assertThat(log.sentTo(a, StoreReplicas.class))
                .as("the late answer to the first send acknowledged it: the second's timeout sends nothing more")
                .hasSize(2);
    }

    /** Runs a session to A up to its first copy sent and unanswered; returns the repair. */
    private Repair copyUnansweredByA() {
        Repair repair = repairHoldingOneValue();
        scheduler.runFor(300_000_000L);
        List<RangeSum> empty = Collections.nCopies(RangeSync.PARTS, new RangeSum(0, 0));
        outbox.onReply(new Envelope(a, digestsTo(a).get(0).envelope().requestId(), new RangeDigestReply(empty)));
        scheduler.runFor(10_000_000L);
        Sent listed = log.sentTo(a, Digest.class).get(0);
        outbox.onReply(new Envelope(a, listed.envelope().requestId(),
                new DigestWant(((Digest) listed.envelope().body()).entries())));
        scheduler.runFor(10_000_000L);
        assertThat(log.sentTo(a, StoreReplicas.class)).hasSize(1);
        return repair;
    }

    @Test
    void theTimeoutOfACopySentBeforeTheCutEndedSendsNothingMore() {
        Repair repair = copyUnansweredByA();
        long rtoMax = config.rtoMaxMillis() * 1_000_000L;
        scheduler.runFor(1_000_000_000L);
        repair.answersResumed(a.id());
        scheduler.runFor(10_000_000L);
        assertThat(log.sentTo(a, StoreReplicas.class)).hasSize(2);

        // Past the first send's timeout, short of the second's (sent 1 s later).
        scheduler.runFor(rtoMax - 1_000_000_000L + 500_000_000L);

        assertThat(log.sentTo(a, StoreReplicas.class)).as("the first send's timeout is no failure of the second")
                .hasSize(2);
    }

    @Test
    void aStreamThatStalledDuringTheCutCarriesOnWhenThePeerAnswersAgain() {
        Repair repair = copyUnansweredByA();
        // Four tries, waiting 1, 2, 3 and 4 times the RTO cap for their answers and pausing 2, 4 and 8 RTO floors
        // between them: then the stream stalls and the session fails. B's session, failed long before, starts again then,
        // and A's only once B's fails again, at least an RTO cap later.
        scheduler.runFor((10 * config.rtoMaxMillis() + 14 * config.rtoMinMillis()) * 1_000_000L + 500_000_000L);
        int tries = log.sentTo(a, StoreReplicas.class).size();
        assertThat(tries).as("every try unanswered, then the stream stalled").isEqualTo(ReplicaStream.ATTEMPTS);

        repair.answersResumed(a.id());
        scheduler.runFor(10_000_000L);

        assertThat(log.sentTo(a, StoreReplicas.class)).as("its kept copy sent again at once").hasSize(tries + 1);
    }
}
