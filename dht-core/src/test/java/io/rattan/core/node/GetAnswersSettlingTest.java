package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replica whose view changed moments ago (it started, a neighbour joined, died or came back, its store refused
 * copies until now) may lack puts its replica set holds: with W = 2 of k = 4 a put acknowledged by two other replicas
 * is on none of this node's disk until repair brings it, and the fault simulator found such replicas answering gets
 * without it (docs/testing.md, "Rule 1 traced"). For {@link NodeConfig#settlingMillis} (10 s)
 * after a change it reads the next replica as well, merges and keeps what it lacked; settled, it reads itself alone.
 * On a {@link ReplicaRig} that has also heard 0x80…05: this node S (0x80…01) is the root of KEY; A (0x80…02) is the
 * next replica.
 */
class GetAnswersSettlingTest extends ReplicaRig {

    private static final Contact FIFTH = contact("8000000000000000000000000000000000000005", 5);
    private static final Contact THIRD = contact("8000000000000000000000000000000000000003", 6);
    private final List<Boolean> served = new ArrayList<>();

    GetAnswersSettlingTest() {
        // As Node wires it: every change of the leaf set is told to the get path.
        super(true, 600_000);
    }

    @Override
    NodeListener listener() {
        return new NodeListener() {
            @Override
            public void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
                served.add(secondReplica);
            }
        };
    }

    /** Runs after the rig's set-up, which has heard A, 0x7f…fd and 0x80…04. */
    @BeforeEach
    void settleTheJoins() {
        members.heard(FIFTH);
        // The joins are changes too: let them settle.
        scheduler.runFor(settlingNanos());
    }

    /** Two anti-entropy turns over the leaf set, one member a round (as after a store fault). */
    private long antiEntropyTurnsNanos() {
        return 2L * 2 * config.leafSetHalf() * config.antiEntropyIntervalMillis() * 1_000_000L;
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
        // A node joins among KEY's replicas (0x80…03 displaces 0x80…04): the replica set changed moments ago.
        members.heard(THIRD);
        scheduler.runFor(settlingNanos() / 2);
        assertThat(gets.settled(KEY)).isFalse();

        gets.serve(get());

        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("the two next replicas, and 0x80…04, a replica before the change")
                .extracting(Sent::to).containsExactlyInAnyOrder(a.address(), c.address(), THIRD.address());
        assertThat(sent(GetReply.class)).as("no answer before the other replicas'").isEmpty();
        answerReads(reads, a, List.of(wire(old), wire(missed)));
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.values()).extracting(v -> v.value()).containsExactlyInAnyOrder(old.value(), missed.value());
        assertThat(storedValues()).as("read repair: the value it lacked is now here")
                .containsExactlyInAnyOrder(old.value(), missed.value());
        assertThat(sent(StoreReplicas.class)).as("repaired: 0x80…03, a replica now; not 0x80…04, a replica before")
                .extracting(Sent::to).containsExactly(THIRD.address());
        assertThat(served).containsExactly(true);
    }

    @Test
    void aReplicaOfTheKeyBeforeTheChangeIsReadTooAndMakesR() {
        // 0x80…04 was a replica of KEY until 0x80…03 joined: a put acknowledged just before by it and one replica of
        // the new set is on neither of the two next replicas of the new set (fault simulator, seed 237).
        StoredRecord missed = value("acknowledged by 0x80…04 and one other, before the join");
        members.heard(THIRD);

        gets.serve(get());

        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).extracting(Sent::to).contains(c.address());
        answerReads(reads.subList(0, reads.size() - 1), c, List.of(wire(missed)));
        assertThat(sent(GetReply.class)).as("R counts the replica before the change: waiting for the last").isEmpty();
        answerReads(reads.subList(reads.size() - 1, reads.size()), c, List.of(wire(missed)));
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.values()).extracting(v -> v.value()).containsExactly(missed.value());
        assertThat(storedValues()).as("read repair").containsExactly(missed.value());
    }

    @Test
    void aPastReplicaThatCannotBeReadIsReplacedByOneMoreCurrentReplica() {
        // 0x80…04 left KEY's replica set when 0x80…03 joined, and is suspected now: it may have crashed holding one of
        // a put's two copies. Each current replica is read then, the put's other holder among them (seed 312).
        members.heard(THIRD);
        members.peerTimedOut(c);

        gets.serve(get());

        assertThat(sent(ReplicaRead.class)).extracting(Sent::to)
                .containsExactlyInAnyOrder(a.address(), THIRD.address(), b.address());
    }

    @Test
    void neighboursBackFromTheDeadUnsettleEveryKeyAndTheReadAsksThoseNearTheKeyThoughNoReplicas() {
        // 0x80…05 and 0x7f…f0 are declared dead, as across a partition; on their side 0x80…05 was among KEY's k
        // closest and acknowledged puts there with W = 2. Back as a member, it is only KEY's fifth closest: no read
        // of the current replicas asks it (eight of the eleven misses 1–4 s after a heal in the long run,
        // docs/testing.md).
        Contact other = contact("7ffffffffffffffffffffffffffffffffffffff0", 7);
        members.heard(other);
        scheduler.runFor(settlingNanos());
        answerExchanges();
        members.peerTimedOut(FIFTH);
        members.peerTimedOut(other);
        scheduler.runFor(config.rtoMaxMillis() * 1_000_000L);
        assertThat(members.leafMembers()).as("declared dead").doesNotContain(FIFTH, other);
        answerExchanges();
        Id far = Id.fromHex("7ffffffffffffffffffffffffffffffffffffff1");
        assertThat(gets.settled(KEY)).as("no replica set of KEY changed").isTrue();

        members.heard(FIFTH);
        assertThat(gets.settled(KEY)).as("one back: as often a slow node heard again as a healed partition").isTrue();
        members.heard(other);

        assertThat(gets.settled(KEY)).as("W back: its replica set did not change").isFalse();
        assertThat(gets.settled(far)).as("every key: the other side's replica sets are unknown here").isFalse();
        gets.serve(get());
        assertThat(sent(ReplicaRead.class)).as("every current replica, and the members back (k at most)")
                .extracting(Sent::to)
                .containsExactlyInAnyOrder(a.address(), b.address(), c.address(), FIFTH.address(), other.address());
        StoredRecord missed = value("acknowledged on 0x80…05's side of the partition");
        answerReads(sent(ReplicaRead.class), FIFTH, List.of(wire(missed)));
        GetReply reply = (GetReply) sent(GetReply.class).get(0).envelope().body();
        assertThat(reply.values()).extracting(v -> v.value()).containsExactly(missed.value());
        assertThat(sent(StoreReplicas.class)).as("read repair: the replicas that lacked it, not 0x80…05")
                .extracting(Sent::to).containsExactlyInAnyOrder(a.address(), b.address(), c.address());

        answerExchanges();
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled(KEY)).isTrue();
    }

    /** Answers every leaf-set exchange sent so far (the refill after a death sends them), so that none times out. */
    private void answerExchanges() {
        for (Sent s : sent(LeafExchange.class)) {
            Contact peer = members.leafMembers().stream().filter(m -> m.address().equals(s.to())).findFirst()
                    .orElseThrow();
            outbox.onReply(new Envelope(peer, s.envelope().requestId(), new LeafExchangeReply(List.of())));
        }
    }

    /** Answers each read in {@code reads}: {@code from} with {@code records}, the others with nothing. */
    private void answerReads(List<Sent> reads, Contact from, List<ReplicaRecord> records) {
        for (Sent read : reads) {
            Address to = read.to();
            Contact peer = members.leafMembers().stream().filter(c -> c.address().equals(to)).findFirst().orElseThrow();
            outbox.onReply(new Envelope(peer, read.envelope().requestId(),
                    new ReplicaReadReply(peer.equals(from) ? records : List.of(), false)));
        }
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
    void aMemberCutOffUnsettlesTheKeysItReplicatesDuringTheCutAndAfterItsFirstAnswer() {
        // A one-way cut: this node's requests to A go unanswered for seconds, while A's own messages still arrive, so
        // A stays a member and no view changes; A meanwhile left this node out of its puts (a fault-simulator trace).
        // Two more nodes, so that a key near them has a replica set without A.
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffff0", 7));
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffff2", 8));
        scheduler.runFor(settlingNanos());
        outbox.request(a, new Ping(), 100_000_000L, ReplyHandler.of(r -> { }, () -> members.peerTimedOut(a)));
        scheduler.runFor(200_000_000L);
        members.heard(a);
        Id far = Id.fromHex("7ffffffffffffffffffffffffffffffffffffff1");
        assertThat(gets.settled(KEY)).as("A's answers stopped less than 5 s ago").isTrue();
        scheduler.runFor(Peers.ANSWERS_STOPPED_NANOS);
        // The cut may be on still, or over without an answer yet: A may hold puts it acknowledged without this node.
        assertThat(gets.settled(KEY)).as("A spoke again, but has not answered for 5 s").isFalse();
        assertThat(gets.settled(far)).as("a key A does not replicate, during the cut").isTrue();
        gets.serve(get());
        assertThat(sent(ReplicaRead.class)).as("the read asks the replicas that answer first")
                .hasSize(GetAnswers.UNSETTLED_READ_QUORUM - 1).extracting(Sent::to).doesNotContain(a.address());
        answerReads(sent(ReplicaRead.class), a, List.of());

        answerNextRequestTo(a);

        assertThat(gets.settled(KEY)).as("A answered after a cut of over a second").isFalse();
        assertThat(gets.settled(far)).as("every key for a view's window: A's side may hold puts of keys near it")
                .isFalse();
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled(far)).as("a key A does not replicate").isTrue();
        // The others hold A's puts made without this node and saw no change: only their anti-entropy turns bring them.
        assertThat(gets.settled(KEY)).as("a view change's window is not enough (seed 1680)").isFalse();
        scheduler.runFor(antiEntropyTurnsNanos() - settlingNanos());
        assertThat(gets.settled(KEY)).isTrue();
    }

    @Test
    void aMemberBackFromAOneWayCutIsReadForAKeyItDoesNotReplicateHere() {
        // Seed 1844 of issue 34's long run: A could not hear this node, took it and its side for dead, and acknowledged
        // a put of a key it is no replica of in this node's view on itself and its side. No read of that key's
        // current replicas asks A, and none of them holds the put until the stray check moves it.
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffff0", 7));
        members.heard(contact("7ffffffffffffffffffffffffffffffffffffff2", 8));
        scheduler.runFor(settlingNanos());
        Id far = Id.fromHex("7ffffffffffffffffffffffffffffffffffffff1");
        outbox.request(a, new Ping(), 100_000_000L, ReplyHandler.of(r -> { }, () -> members.peerTimedOut(a)));
        scheduler.runFor(200_000_000L);
        members.heard(a);
        scheduler.runFor(Peers.ANSWERS_STOPPED_NANOS);
        assertThat(gets.settled(far)).as("during the cut: A is no replica of it").isTrue();

        answerNextRequestTo(a);

        assertThat(gets.settled(far)).as("A answered after a cut of over a second").isFalse();
        gets.serve(new GetRequest(far, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY, gateway, 78, 2, false, Cost.ZERO));
        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("A, back from the cut, though the fifth closest to the key").extracting(Sent::to)
                .contains(a.address());
        StoredRecord missed = value(far, "acknowledged on A's side while it could not hear this node");
        answerReads(reads, a, List.of(wire(missed)));
        GetReply reply = (GetReply) sent(GetReply.class).get(0).envelope().body();
        assertThat(reply.values()).extracting(v -> v.value()).containsExactly(missed.value());
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled(far)).isTrue();
    }

    @Test
    void theReplicasStillSuspectedWhenACutEndsAreReadToo() {
        // OneWayCutNodeTest under load: while this node was cut off one way, each request of its timed out and
        // suspected its neighbours, their own messages cleared them, and the last timeouts left them suspected until
        // they answer again. 0x80…05, the fifth closest to KEY, answered first: its cut ended and KEY is unsettled,
        // while A, 0x7f…fd and 0x80…04, which took a put without this node, were still suspected. A read of the usable
        // replicas alone (this node and 0x80…05) answered OK without the put.
        List<Contact> cut = List.of(a, b, c, FIFTH);
        cut.forEach(this::leaveRequestUnanswered);
        scheduler.runFor(200_000_000L);
        cut.forEach(members::heard);
        scheduler.runFor(Peers.CUT_OFF_NANOS);
        List.of(a, b, c).forEach(this::leaveRequestUnanswered);
        scheduler.runFor(200_000_000L);
        assertThat(List.of(a, b, c)).noneMatch(members::usable);

        answerNextRequestTo(FIFTH);

        assertThat(gets.settled(KEY)).isFalse();
        gets.serve(get());
        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("the suspected replicas too, after the one that answers").extracting(Sent::to)
                .containsExactlyInAnyOrder(FIFTH.address(), a.address(), b.address(), c.address());
        assertThat(reads.get(0).to()).isEqualTo(FIFTH.address());
        StoredRecord missed = value("acknowledged by A and 0x7f…fd while this node was cut off");
        answerReads(reads.subList(0, 2), a, List.of(wire(missed)));
        assertThat(sent(GetReply.class)).as("R grows by the suspects: waiting for the others").isEmpty();
        answerReads(reads.subList(2, 4), a, List.of(wire(missed)));
        GetReply reply = (GetReply) sent(GetReply.class).get(0).envelope().body();
        assertThat(reply.values()).extracting(v -> v.value()).containsExactly(missed.value());
    }

    /** Sends {@code peer} a ping that goes unanswered: its timeout suspects the peer, as any request's does. */
    private void leaveRequestUnanswered(Contact peer) {
        outbox.request(peer, new Ping(), 100_000_000L, ReplyHandler.of(r -> { }, () -> members.peerTimedOut(peer)));
    }

    @Test
    void aSlowMembersLateAnswersLeaveTheKeySettled() {
        // A slow node: requests to it time out, and it answers them, in the order sent, seconds late.
        outbox.request(a, new Ping(), 100_000_000L, ReplyHandler.of(r -> { }, () -> members.peerTimedOut(a)));
        Sent first = sent.get(sent.size() - 1);
        scheduler.runFor(Peers.CUT_OFF_NANOS / 2);
        answerNextRequestTo(a, false);
        scheduler.runFor(2 * Peers.CUT_OFF_NANOS);
        assertThat(sent(Ping.class)).as("the request, the suspicion's probe, its resend 2 s later (the backed-off RTO)"
                + " and the one sent later").hasSize(4);

        outbox.onReply(new Envelope(a, first.envelope().requestId(), new Pong(List.of(), 0)));
        answerAll(a);

        assertThat(gets.settled(KEY)).as("answered late, not lost").isTrue();
    }

    /** Sends {@code peer} a ping, as any request of this node's, and delivers its answer to it now. */
    private void answerNextRequestTo(Contact peer) {
        answerNextRequestTo(peer, true);
    }

    /** Sends {@code peer} a ping, and delivers its answer now if {@code answer} (else leaves it out). */
    private void answerNextRequestTo(Contact peer, boolean answer) {
        outbox.request(peer, new Ping(), 10_000_000_000L, ReplyHandler.of(r -> { }, () -> { }));
        Sent ping = sent.get(sent.size() - 1);
        if (answer) {
            outbox.onReply(new Envelope(peer, ping.envelope().requestId(), new Pong(List.of(), 0)));
        }
    }

    /** Delivers {@code peer}'s answers to every ping sent to it so far, in the order sent (late ones included). */
    private void answerAll(Contact peer) {
        for (Sent s : sent(Ping.class)) {
            if (s.to().equals(peer.address())) {
                outbox.onReply(new Envelope(peer, s.envelope().requestId(), new Pong(List.of(), 0)));
            }
        }
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
    void anExpiryClockInDoubtUnsettlesEveryKey() {
        // It may be an hour ahead: the store hides every record it judges expired (seed 1640, docs/testing.md).
        clockInDoubt = true;
        assertThat(gets.settled(KEY)).isFalse();
        clockInDoubt = false;
        assertThat(gets.settled(KEY)).isTrue();
    }

    @Test
    void aStoreThatRecoveredFromAFaultStaysUnsettledForTwoAntiEntropyTurns() {
        long turnsNanos = antiEntropyTurnsNanos();
        healthy = false;
        assertThat(gets.settled(KEY)).isFalse();
        scheduler.runFor(turnsNanos * 3);
        assertThat(gets.settled(KEY)).as("still in the fault").isFalse();
        healthy = true;
        assertThat(gets.settled(KEY)).as("the copies it refused are not here yet").isFalse();
        scheduler.runFor(settlingNanos());
        assertThat(gets.settled(KEY)).as("a view change's window is not enough").isFalse();
        scheduler.runFor(turnsNanos - settlingNanos());
        assertThat(gets.settled(KEY)).isTrue();
    }
}
