package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A copy that reaches one replica of its key from outside the key's replica set (a stray check, or a node whose view
 * differs, after a partition or churn stored the put off the set), which the replica asked for in answer to the
 * sender's digest (unasked it is refused: {@link SolicitedCopies}), is passed on to the key's other replicas at once
 * ({@link Repair#passOn}), not left for their anti-entropy turns; a copy from a fellow replica is not. A node holding
 * such a stray offers it to the key's replicas at each change of its view ({@link StrayCheck}). Anti-entropy runs
 * once a week here, so only these can spread a copy.
 */
class PassOnTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 12;

    private VirtualWorld world;
    private Id key;
    /** The nodes by closeness to the key: the first four are its replicas. */
    private List<Integer> byCloseness;

    @BeforeEach
    void overlay() {
        NodeConfig config = NodeConfig.defaults().withReplicas(4, 2).withPeriods(1_000, 7 * 86_400_000L, 10_000);
        world = new VirtualWorld(29, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(30 * SECOND);
        key = Id.random(new SplittableRandom(31));
        byCloseness = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            byCloseness.add(i);
        }
        byCloseness.sort(Comparator.comparing(i -> world.contact(i).id(),
                (a, b) -> a.equals(b) ? 0 : a.isCloserTo(key, b) ? -1 : 1));
    }

    /** Hands node {@code to} a new copy of a value of the key, as if node {@code from} had sent it. */
    private ReplicaRecord hand(int from, int to, String text) {
        Bytes value = Bytes.utf8(text);
        ReplicaRecord copy = new ReplicaRecord(key, value.sha256(), value,
                world.scheduler().epochMillis() + 3_600_000L, Bytes.EMPTY, Bytes.EMPTY, false);
        world.node(to).receive(new Envelope(world.contact(from), 77, new StoreReplicas(List.of(copy))));
        return copy;
    }

    private long holders(ReplicaRecord copy) {
        return byCloseness.subList(0, 4).stream()
                .filter(i -> world.store(i).read(copy.key(), copy.slot()).isPresent()).count();
    }

    @Test
    void aCopyFromOutsideTheReplicaSetReachesEveryReplicaOnceAsked() {
        int outsider = byCloseness.get(NODES - 1);
        int replica = byCloseness.get(1);
        ReplicaRecord unasked = hand(outsider, replica, "pushed");
        world.runFor(2 * SECOND);
        assertThat(holders(unasked)).as("replicas holding a copy a member outside the set pushed unasked").isZero();

        // The stray check's way: the outsider offers a digest, the replica asks for what it lacks, the copy follows.
        Bytes value = Bytes.utf8("stray");
        world.node(replica).receive(new Envelope(world.contact(outsider), 76, new Digest(List.of(
                new DigestEntry(key, value.sha256(), false)))));
        world.runFor(SECOND);
        ReplicaRecord copy = hand(outsider, replica, "stray");
        world.runFor(2 * SECOND);
        assertThat(holders(copy)).as("replicas holding a copy handed to one of them, asked, by a node outside the set")
                .isEqualTo(4);
    }

    @Test
    void aViewChangeOffersAStrayToTheKeysReplicasWithoutWaitingForAnAntiEntropyRound() {
        // A put acknowledged during a partition by nodes that did not see the key's true replicas: once the sides meet,
        // their copies are strays, which the stray check of anti-entropy rounds alone offered, a member at a time.
        int holder = byCloseness.get(6);
        Bytes value = Bytes.utf8("acknowledged off the set");
        world.store(holder).write(StoredRecord.value(key, value, world.scheduler().epochMillis() + 3_600_000L,
                Bytes.EMPTY));
        ReplicaRecord copy = new ReplicaRecord(key, value.sha256(), value, 0, Bytes.EMPTY, Bytes.EMPTY, false);
        world.runFor(10 * SECOND);
        assertThat(holders(copy)).as("no change, no round: the stray stays where it is").isZero();

        // Declared dead (a suspicion alone changes no member), the node leaves the holder's leaf set.
        world.crash(byCloseness.get(NODES - 1), VirtualWorld.Disk.KEPT);
        world.runFor(20 * SECOND);

        assertThat(holders(copy)).as("replicas holding the stray once the holder's view changed").isEqualTo(4);
    }

    @Test
    void aCopyFromAFellowReplicaIsNotPassedOn() {
        ReplicaRecord copy = hand(byCloseness.get(0), byCloseness.get(1), "copy");
        world.runFor(2 * SECOND);
        assertThat(holders(copy)).as("replicas holding a copy the root sent to one of them").isEqualTo(1);
    }
}
