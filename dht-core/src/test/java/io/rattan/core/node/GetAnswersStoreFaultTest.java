package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.ReplicaRead;
import io.rattan.core.msg.Messages.ReplicaReadReply;
import io.rattan.core.msg.Status;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replica whose store is in a fault (a full disk) refused every copy since: the fault simulator found roots with a
 * full disk answering gets without the puts made meanwhile. On a {@link ReplicaRig}: this node S (0x80…01) is the root
 * of KEY; A (0x80…02) is the next replica.
 */
class GetAnswersStoreFaultTest extends ReplicaRig {

    GetAnswersStoreFaultTest() {
        // Leaf-set changes are not told to the get path: the set-up's joins leave KEY settled; a fault unsettles it.
        super(false, 60_000);
    }

    @Test
    void aHealthyRootAnswersFromItsOwnStore() {
        memory.write(value("old"));
        gets.serve(get());

        assertThat(sent(ReplicaRead.class)).isEmpty();
        assertThat(sent(GetReply.class)).hasSize(1);
    }

    @Test
    void aRootWhoseStoreIsInAFaultMergesWithTheTwoNextReplicas() {
        StoredRecord old = value("old");
        StoredRecord missed = value("put while the disk was full");
        memory.write(old);
        healthy = false;

        assertThat(gets.answersGet(KEY)).as("the root still takes the get").isTrue();
        gets.serve(get());

        // k = 4, W = 2: a put acknowledged while this store refused copies is on 2 of the 3 others; reading 2 of them
        // finds it wherever it is (here on the second one read only).
        List<Sent> reads = sent(ReplicaRead.class);
        assertThat(reads).as("two other replicas read").hasSize(2);
        assertThat(reads.stream().map(Sent::to)).as("the closest two").containsExactlyInAnyOrder(a.address(),
                b.address());
        Sent toA = reads.get(0).to().equals(a.address()) ? reads.get(0) : reads.get(1);
        Sent toB = toA == reads.get(0) ? reads.get(1) : reads.get(0);
        outbox.onReply(new Envelope(a, toA.envelope().requestId(), new ReplicaReadReply(List.of(wire(old)), false)));
        assertThat(sent(GetReply.class)).as("no answer before both answered").isEmpty();
        outbox.onReply(new Envelope(b, toB.envelope().requestId(),
                new ReplicaReadReply(List.of(wire(old), wire(missed)), false)));
        List<Sent> replies = sent(GetReply.class);
        assertThat(replies).hasSize(1);
        GetReply reply = (GetReply) replies.get(0).envelope().body();
        assertThat(reply.status()).isEqualTo(Status.OK);
        assertThat(reply.values()).extracting(v -> v.value()).containsExactlyInAnyOrder(Bytes.utf8("old"),
                Bytes.utf8("put while the disk was full"));
    }

    /**
     * Once its store takes writes again the puts refused meanwhile are still missing until repair brings them, which
     * may wait for the neighbours' anti-entropy turns: the fault simulator traced misses 13–37 s after the disk was
     * freed, past the 10 s a view change unsettles a key for. The node reads two more replicas for two such turns.
     */
    @Test
    void aStoreThatRefusedCopiesReadsTwoMoreReplicasForTwoAntiEntropyTurnsAfterItRecovers() {
        healthy = false;
        // The node's maintenance asks this each period while the store is in a fault (Node.maintainNeighbours).
        gets.storeFaulted();
        healthy = true;
        long turnsMillis = 2L * 2 * config.leafSetHalf() * config.antiEntropyIntervalMillis();
        assertThat(turnsMillis).isGreaterThan(config.settlingMillis() + 1_000);

        scheduler.runFor(NodeContext.nanos(config.settlingMillis() + 1_000));
        int before = sent(ReplicaRead.class).size();
        gets.serve(get());
        assertThat(sent(ReplicaRead.class).size() - before).as("reads past a view change's window").isEqualTo(2);

        scheduler.runFor(NodeContext.nanos(turnsMillis));
        before = sent(ReplicaRead.class).size();
        gets.serve(get());
        assertThat(sent(ReplicaRead.class).size() - before).as("reads once two turns passed").isZero();
    }

    @Test
    void aNonRootReplicaWhoseStoreIsInAFaultPassesTheGetOn() {
        // 0x80…03: A (0x80…02) and 0x80…04 are closer than this node, which is still one of the 4 replicas.
        Id other = Id.fromHex("8000000000000000000000000000000000000003");
        memory.write(value(other, "v"));
        assertThat(gets.answersGet(other)).isTrue();

        healthy = false;

        assertThat(gets.answersGet(other)).isFalse();
    }
}
