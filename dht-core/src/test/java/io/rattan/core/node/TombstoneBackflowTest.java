package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.store.TestSlots;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A node that holds a removed value live although it is no replica (a replica that missed the remove came back and
 * pushed it there before it learned of the remove) learns the remove by anti-entropy: the replicas' digests do not
 * go to it, but its own digest does go to them, and a replica that holds the tombstone sends it back.
 */
class TombstoneBackflowTest {

    private static final long MS = 1_000_000L;

    @Test
    void aStaleLiveCopyOnANodeNextToTheReplicasBecomesATombstone() {
        LatencyModel latency = (from, to, r) -> 5 * MS + (long) (r.nextDouble() * 5 * MS);
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(4).withReplicas(4, 2).withPeriods(500, 1_000, 1_000);
        VirtualWorld world = new VirtualWorld(11, config, latency);
        assertThat(world.addNodesInWaves(40, 16)).isZero();
        world.runFor(Duration.ofSeconds(10).toNanos());

        Id key = Id.random(world.random());
        Bytes value = Bytes.utf8("removed");
        Bytes secret = Bytes.utf8("s3cret");
        Bytes binding = SecretBinding.of(secret, key, value.sha256());
        Bytes slot = TestSlots.of(key, value, secret);
        Message put = world.request(0, new ClientPut(key, value, 3600, binding));
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
        world.runFor(Duration.ofSeconds(3).toNanos());
        Message removed = world.request(0, new ClientRemove(key, value.sha256(), secret, 0));
        assertThat(((RemoveReply) removed).status()).isEqualTo(Status.OK);
        world.runFor(Duration.ofSeconds(3).toNanos());

        // The node just outside the k closest to the key: it sees the replicas as its key's replicas, they do not
        // see it as one.
        List<Integer> byDistance = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            byDistance.add(i);
        }
        byDistance.sort((a, b) -> world.contact(a).id().distanceTo(key)
                .compareTo(world.contact(b).id().distanceTo(key)));
        int outsider = byDistance.get(config.replicas());
        StoredRecord tombstone = world.store(byDistance.get(0)).read(key, slot).orElseThrow();
        assertThat(tombstone.tombstone()).as("the root holds the tombstone").isTrue();
        assertThat(tombstone.secret()).as("the tombstone carries the remove's secret").isEqualTo(secret);
        world.store(outsider).write(StoredRecord.value(key, value, tombstone.expiresAtMillis(), binding));

        world.runFor(Duration.ofSeconds(30).toNanos());

        Optional<StoredRecord> after = world.store(outsider).read(key, slot);
        assertThat(after).as("the outsider's record").isPresent();
        assertThat(after.get().tombstone()).as("the outsider's copy turned into a tombstone").isTrue();
    }
}
