package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * W means W (issue 17), and a slow node is not a failed one (issue 15): a put is acknowledged only once W distinct
 * nodes hold it, a node alone refuses puts unless it runs with W = 1, and a root or replica that answers later than
 * its RTO (as JVMs starting side by side on two cores do) is waited for instead of the put being refused.
 */
class WriteQuorumTest {

    private static final long MS = 1_000_000L;

    @Test
    void aNodeAloneRefusesPutsUnlessItRunsWithWOfOne() {
        VirtualWorld world = new VirtualWorld(1, NodeConfig.defaults(), LatencyModel.constant(MS));
        world.addNodes(1);
        Message refused = world.request(0, new ClientPut(Id.ofName("k"), Bytes.utf8("v"), 600, Bytes.EMPTY));
        assertThat(((PutReply) refused).status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(((PutReply) refused).detail()).contains("in view");

        VirtualWorld trial = new VirtualWorld(1, NodeConfig.defaults().withReplicas(1, 1), LatencyModel.constant(MS));
        trial.addNodes(1);
        Message ok = trial.request(0, new ClientPut(Id.ofName("k"), Bytes.utf8("v"), 600, Bytes.EMPTY));
        assertThat(((PutReply) ok).status()).isEqualTo(Status.OK);
        assertThat(((PutReply) ok).replicas()).isEqualTo(1);
    }

    @Test
    void putsWhoseRootOrReplicasTurnSlowAreAcknowledgedWithWCopiesNotRefused() {
        Set<Integer> slow = new HashSet<>();
        // Fast links, measured at about 2 ms, so every RTO sits at its 100 ms floor; a slow node's messages then take
        // 400 ms each way, past that RTO but well within the request timeout.
        LatencyModel latency = (from, to, r) -> MS + (slow.contains(index(from)) || slow.contains(index(to))
                ? 400 * MS : 0);
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3).withReplicas(2, 2);
        VirtualWorld world = new VirtualWorld(7, config, latency);
        world.addNodes(16);
        world.runFor(Duration.ofSeconds(30).toNanos());

        int puts = 0;
        for (int i = 0; i < 40; i++) {
            Id key = Id.ofName("slow-" + i);
            List<Integer> byDistance = new ArrayList<>(world.liveIndexes());
            byDistance.sort(Comparator.comparing((Integer n) -> world.contact(n).id().distanceTo(key)));
            // Odd keys: the root itself is slow. Even keys: the root's only other replica is.
            int slowNode = byDistance.get(i % 2 == 0 ? 1 : 0);
            int gateway = byDistance.get(byDistance.size() - 1 - i % 4);
            slow.clear();
            slow.add(slowNode);
            Message reply = world.request(gateway, new ClientPut(key, Bytes.utf8("v" + i), 600, Bytes.EMPTY));
            assertThat(reply).as("put %d with node %d slow", i, slowNode).isInstanceOf(PutReply.class);
            PutReply put = (PutReply) reply;
            assertThat(put.status()).as("put %d: %s", i, put.detail()).isEqualTo(Status.OK);
            assertThat(put.replicas()).isGreaterThanOrEqualTo(2);
            int holders = 0;
            for (int n : world.liveIndexes()) {
                holders += world.store(n).read(key, Bytes.utf8("v" + i).sha256()).isPresent() ? 1 : 0;
            }
            slow.clear();
            // Let the slow node's late answers arrive and clear its suspicion before the next put.
            world.runFor(Duration.ofSeconds(6).toNanos());
            assertThat(holders).as("nodes holding put %d when it was acknowledged", i).isGreaterThanOrEqualTo(2);
            puts++;
        }
        assertThat(puts).isEqualTo(40);
    }

    private static int index(Address a) {
        return a.port() - 1;
    }
}
