package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.client.GetOptions;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Gets that start the moment a partition heals, in the virtual world with the real node code. During the partition
 * each side declared the other dead and acknowledged its puts on replicas of its own side; once it heals, the two
 * sides meet again only when a ping crosses ({@link LostContacts}), seconds later. A get answered on the other side
 * meanwhile took its own side's nodes for the key's replicas and answered OK without the put (the fault simulator's
 * rule-1 misses "the answerer's leaf set lacks one of its nearest live nodes", docs/testing.md, "Rule 1 traced"): it
 * must read the neighbours it lost lately that would be replicas of the key.
 */
class PartitionHealGetTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 20;
    private static final int KEYS = 24;

    /** Cuts every link between the two halves (even and odd node numbers) while {@code cut} is set. */
    private static final class Halves extends LosingLinks {
        boolean cut;

        @Override
        boolean lost(Address from, Address to) {
            return cut && VirtualAddresses.index(from) % 2 != VirtualAddresses.index(to) % 2;
        }
    }

    @Test
    void aGetRightAfterAHealReturnsWhatTheOtherSideAcknowledgedDuringThePartition() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3);
        VirtualWorld world = new VirtualWorld(11, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(20 * SECOND);

        Halves halves = new Halves();
        world.network().faults(halves);
        halves.cut = true;
        // Until each side has declared the other dead (a timeout, then a probe of rtoMax): not much longer, or the
        // sides would have stopped reading their lost neighbours.
        int seconds = 0;
        while (crossing(world) > 0 && seconds < 60) {
            world.runFor(SECOND);
            seconds++;
        }
        assertThat(crossing(world)).as("leaf-set members across the cut after %d s", seconds).isZero();
        // Puts through even gateways: acknowledged by replicas on the even side only.
        Map<Id, Bytes> acked = new LinkedHashMap<>();
        for (int k = 0; k < KEYS; k++) {
            Id key = Id.ofName("heal-" + k);
            Bytes value = Bytes.utf8("v" + k);
            Message put = world.request(2 * (k % (NODES / 2)), new ClientPut(key, value, 3600, Bytes.EMPTY));
            if (put instanceof PutReply p && p.status() == Status.OK) {
                acked.put(key, value);
            }
        }
        assertThat(acked).as("puts acknowledged on the even side").hasSizeGreaterThan(KEYS / 2);

        // The partition heals, and every get starts at once through an odd gateway, before any ping has crossed.
        halves.cut = false;
        List<Message[]> replies = new ArrayList<>();
        int g = 0;
        for (Map.Entry<Id, Bytes> e : acked.entrySet()) {
            Node gateway = world.node(2 * (g++ % (NODES / 2)) + 1);
            Message[] reply = new Message[1];
            replies.add(reply);
            ClientGet get = new ClientGet(e.getKey(), 0, Bytes.EMPTY);
            world.scheduler().execute(() -> gateway.handleClient(get, GetOptions.carriedBy(get), m -> reply[0] = m));
        }
        world.runFor(2 * config.requestTimeoutMillis() * 1_000_000L);

        int i = 0;
        int answered = 0;
        for (Map.Entry<Id, Bytes> e : acked.entrySet()) {
            Message reply = replies.get(i++)[0];
            if (reply instanceof GetReply r && r.status() == Status.OK) {
                answered++;
                assertThat(r.values()).extracting(v -> v.value()).as("get of %s answered OK right after the heal",
                        e.getKey().shortHex()).contains(e.getValue());
            }
        }
        assertThat(answered).as("gets answered OK").isGreaterThan(acked.size() / 2);
    }

    /** Leaf-set members, over all nodes, on the other side of the cut. */
    private static int crossing(VirtualWorld world) {
        int n = 0;
        for (int i = 0; i < world.size(); i++) {
            for (Contact c : world.node(i).status().leafSet()) {
                n += VirtualAddresses.index(c.address()) % 2 != i % 2 ? 1 : 0;
            }
        }
        return n;
    }
}
