package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 17's repair-at-volume case in the virtual world: k − 1 ring neighbours die at once, so the node beyond them
 * sees one side of its leaf set hold only suspects (then nothing, until exchange refills it). Such a node must not
 * take itself for the root of a key whose surviving replica lies beyond the dead ones: a get it answered would be
 * empty although that replica holds the value. Every get answered OK, through every live node, from the kill on,
 * must hold the value.
 */
class NeighboursDieTogetherTest {

    private static final int NODES = 8;
    private static final int KEYS = 200;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void noGetIsAnsweredEmptyWhileTheLeafSetsOfTheSurvivorsRefill() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3);
        VirtualWorld world = new VirtualWorld(17, config, LatencyModel.constant(2_000_000L));
        world.addNodes(NODES);
        List<Id> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            Id key = Id.ofName("volume-" + i);
            Message put = world.request(i % NODES, new ClientPut(key, Bytes.utf8("value " + i), 3600, Bytes.EMPTY));
            assertThat(((PutReply) put).status()).as("put %d", i).isEqualTo(Status.OK);
            keys.add(key);
        }
        // Anti-entropy rounds: every key on its k replicas before the kill.
        world.runFor(30 * SECOND);

        List<Integer> ring = new ArrayList<>(world.liveIndexes());
        ring.sort((a, b) -> world.contact(a).id().compareTo(world.contact(b).id()));
        for (int i = 0; i < config.replicas() - 1; i++) {
            world.kill(ring.get(i));
        }
        List<String> empty = new ArrayList<>();
        int answered = 0;
        for (int i = 0; i < keys.size(); i++) {
            for (int gateway : world.liveIndexes()) {
                Message reply = world.request(gateway, ClientGet.of(keys.get(i)));
                if (reply instanceof GetReply g && g.status() == Status.OK) {
                    answered++;
                    if (!g.values().isEmpty() && g.values().get(0).value().equals(Bytes.utf8("value " + i))) {
                        continue;
                    }
                    empty.add("key " + i + " via node " + gateway + ": " + g.values().size() + " values");
                }
            }
        }
        assertThat(answered).as("gets answered OK").isPositive();
        assertThat(empty).as("gets answered without the value, of %d answered", answered).isEmpty();
    }
}
