package io.rattan.core.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Joins and graceful leaves started from inside scheduled events, as a churn driver starts them: they must not run
 * the scheduler themselves, and they go through the protocol (a join, a hand-off) as the blocking calls do.
 */
class ChurnFromEventsTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aNodeStartedInAnEventJoinsAndAReplicaLeavingInAnEventHandsItsValuesOff() {
        VirtualWorld world = new VirtualWorld(11, NodeConfig.defaults(), LatencyModel.constant(20_000_000L));
        world.addNodes(30);
        world.runFor(10 * SECOND);
        Id key = Id.random(new SplittableRandom(3));
        Bytes value = Bytes.utf8("kept");
        Message put = world.request(0, new ClientPut(key, value, 3600, Bytes.EMPTY));
        assertThat(put).isInstanceOf(PutReply.class);
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
        // Every replica leaves but one, so that the value survives only by the hand-offs.
        List<Integer> replicas = new ArrayList<>(world.liveIndexes());
        replicas.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        List<Integer> leaving = replicas.subList(0, NodeConfig.defaults().replicas() - 1);

        int[] started = {-1};
        int[] gone = {0};
        List<Integer> servingDuringLeave = new ArrayList<>();
        world.scheduler().execute(() -> {
            started[0] = world.startNode();
            for (int r : leaving) {
                world.startLeave(r, () -> gone[0]++);
            }
            servingDuringLeave.addAll(world.servingIndexes());
        });
        world.runFor(120 * SECOND);

        assertThat(started[0]).isEqualTo(30);
        assertThat(world.node(started[0]).isJoined()).isTrue();
        assertThat(world.servingIndexes()).contains(started[0]).doesNotContainAnyElementsOf(leaving);
        assertThat(servingDuringLeave).doesNotContainAnyElementsOf(leaving).doesNotContain(started[0]);
        assertThat(gone[0]).isEqualTo(leaving.size());
        for (int r : leaving) {
            assertThat(world.isAlive(r)).isFalse();
            assertThatThrownBy(() -> world.startLeave(r, () -> { })).isInstanceOf(IllegalStateException.class);
        }
        Message get = world.request(started[0], ClientGet.of(key));
        assertThat(get).isInstanceOf(GetReply.class);
        assertThat(((GetReply) get).values()).extracting(v -> v.value()).containsExactly(value);
    }
}
