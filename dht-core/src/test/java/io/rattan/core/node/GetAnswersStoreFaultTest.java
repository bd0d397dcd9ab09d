package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.ReplicaRead;
import io.rattan.core.msg.Messages.ReplicaReadReply;
import io.rattan.core.msg.Status;
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
        memory.write(value(other, "v"));
        assertThat(gets.answersGet(other)).isTrue();

        healthy = false;

        assertThat(gets.answersGet(other)).isFalse();
    }
}
