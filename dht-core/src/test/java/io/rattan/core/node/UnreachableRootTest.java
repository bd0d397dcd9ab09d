package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When every node closer to a key is unreachable, a node does not answer for them: a get that cannot reach the key's
 * replicas fails (the client retries elsewhere) instead of returning an empty set as if the key held nothing.
 */
class UnreachableRootTest {

    @Test
    void aGetWhoseReplicasAllJustDiedFailsInsteadOfAnsweringEmpty() {
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults().withLeafSetHalf(4),
                LatencyModel.constant(5_000_000L));
        world.addNodes(60);
        Id key = Id.ofName("lost");
        Message put = world.request(0, new ClientPut(key, Bytes.utf8("v"), 600, Bytes.EMPTY));
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);

        List<Integer> byDistance = new ArrayList<>(world.liveIndexes());
        byDistance.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        List<Integer> replicas = byDistance.subList(0, 4);
        int gateway = byDistance.get(byDistance.size() - 1);
        for (int r : replicas) {
            world.kill(r);
        }
        // At once, before any node has declared them dead.
        Message reply = world.request(gateway, ClientGet.of(key));
        if (reply instanceof GetReply g) {
            assertThat(g.values()).as("a get answered OK must not pretend the key is empty").isNotEmpty();
        } else {
            assertThat(((ErrorReply) reply).status()).isIn(Status.UNAVAILABLE, Status.TIMEOUT);
        }
    }
}
