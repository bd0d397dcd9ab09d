package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Gets that start the moment a partition heals, in the virtual world with the real node code. During the partition
 * each side declared the other dead and acknowledged its puts on replicas of its own side; once it heals, the two
 * sides meet again only when a ping crosses ({@link LostContacts}), seconds later. A get answered on the other side
 * meanwhile took its own side's nodes for the key's replicas and answered OK without the put (the fault simulator's
 * rule-1 misses "the answerer's leaf set lacks one of its nearest live nodes", docs/testing.md, "Rule 1 traced"): the
 * gets ping the neighbours it lost lately that would be replicas of the key, and those that answer are back.
 */
class PartitionHealGetTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 20;
    private static final int KEYS = 24;

    @Test
    void theGetsOfADeadNodesKeysPingItAtMostOnceASecondFromEachNodeAndAreNotHeldUp() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3);
        VirtualWorld world = new VirtualWorld(12, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(20 * SECOND);
        List<Id> keys = new ArrayList<>();
        for (int k = 0; k < 2 * KEYS; k++) {
            Id key = Id.ofName("crash-" + k);
            if (world.request(k % NODES, new ClientPut(key, Bytes.utf8("v" + k), 3600, Bytes.EMPTY))
                    instanceof PutReply p && p.status() == Status.OK) {
                keys.add(key);
            }
        }
        int dead = 7;
        Contact gone = world.node(dead).self();
        long nearDead = keys.stream().filter(key -> amongClosest(world, key, gone.id(), config.replicas())).count();
        world.kill(dead);
        int seconds = 0;
        while (holders(world, gone) > 0 && seconds < 60) {
            world.runFor(SECOND);
            seconds++;
        }
        assertThat(holders(world, gone)).as("leaf sets still holding the dead node after %d s", seconds).isZero();

        int[] pings = {0};
        int[] reads = {0};
        world.network().observer((from, to, e) -> {
            pings[0] += to.equals(gone.address()) && e.body() instanceof Ping ? 1 : 0;
            reads[0] += to.equals(gone.address()) && e.body() instanceof ReplicaRead ? 1 : 0;
        });
        long start = world.scheduler().nanoTime();
        int rounds = 5;
        int ok = 0;
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < keys.size(); k++) {
                int gateway = (k + round) % NODES == dead ? (dead + 1) % NODES : (k + round) % NODES;
                Message reply = world.request(gateway, ClientGet.of(keys.get(k)));
                ok += reply instanceof GetReply r && r.status() == Status.OK && !r.values().isEmpty() ? 1 : 0;
            }
        }

        long elapsed = (world.scheduler().nanoTime() - start) / SECOND + 1;

        // Each of the 2·half nodes that lost it: at most a get's ping a second, and a periodic one every 2 s or more.
        assertThat(rounds * nearDead).as("gets of keys the dead node was a replica of").isGreaterThan(3 * elapsed);
        assertThat(pings[0]).as("pings of the dead node over %d s of gets", elapsed)
                .isBetween(1, (int) (2 * config.leafSetHalf() * (elapsed + elapsed / 2 + 2)));
        assertThat(reads[0]).as("reads of the dead node: gets do not wait for it").isZero();
        assertThat(ok).as("gets that returned their value").isEqualTo(rounds * keys.size());
    }

    @Test
    void afterALongPartitionTheGetsHalfASecondAfterTheHealSeeTheOtherSide() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3);
        VirtualWorld world = new VirtualWorld(13, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(20 * SECOND);

        EvenOddCut halves = new EvenOddCut();
        Map<Id, Bytes> acked = cutAndPutOnTheEvenSide(world, halves, "long-");
        // The odd side reads the keys all through a long partition: every lost neighbour it reads goes silent, and
        // the periodic pings back off to a minute apart.
        for (int minute = 0; minute < 3; minute++) {
            getsThroughOddGateways(world, acked.keySet(), 2 * config.requestTimeoutMillis());
            world.runFor(60 * SECOND);
        }

        halves.cut = false;
        // The first gets after the heal ping the silent ones (they do not wait); half a second later (10 ms each way)
        // the two sides are one ring again, long before the periodic pings, a minute apart by now, would have met.
        getsThroughOddGateways(world, acked.keySet(), 0);
        world.runFor(SECOND / 2);

        Map<Id, Message> after = getsThroughOddGateways(world, acked.keySet(), 2 * config.requestTimeoutMillis());

        assertOkRepliesHoldTheirValues(acked, after, "half a second after the heal");
    }

    /** Every get was answered OK with the value acknowledged under its key. */
    private static void assertOkRepliesHoldTheirValues(Map<Id, Bytes> acked, Map<Id, Message> replies, String when) {
        assertThat(replies.keySet()).as("gets answered %s", when).isEqualTo(acked.keySet());
        for (Map.Entry<Id, Bytes> e : acked.entrySet()) {
            assertThat(replies.get(e.getKey())).as("get of %s %s", e.getKey().shortHex(), when)
                    .isInstanceOfSatisfying(GetReply.class, r -> {
                        assertThat(r.status()).isEqualTo(Status.OK);
                        assertThat(r.values()).extracting(v -> v.value()).contains(e.getValue());
                    });
        }
    }

    /** One get of each key through the odd gateways, all started at once; their replies within {@code millis}. */
    private static Map<Id, Message> getsThroughOddGateways(VirtualWorld world, Set<Id> keys, long millis) {
        Map<Id, Message> replies = new LinkedHashMap<>();
        int g = 0;
        for (Id key : keys) {
            Node gateway = world.node(2 * (g++ % (NODES / 2)) + 1);
            ClientGet get = ClientGet.of(key);
            world.scheduler().execute(() -> gateway.handleClient(get, m -> replies.put(key, m)));
        }
        world.runFor(millis * 1_000_000L);
        return replies;
    }

    /** Whether {@code id} is among the {@code k} node ids of the world closest to {@code key}. */
    private static boolean amongClosest(VirtualWorld world, Id key, Id id, int k) {
        int closer = 0;
        for (int i = 0; i < world.size(); i++) {
            Id other = world.node(i).self().id();
            closer += !other.equals(id) && other.isCloserTo(key, id) ? 1 : 0;
        }
        return closer < k;
    }

    /** Leaf sets, over all nodes, that hold {@code c}. */
    private static int holders(VirtualWorld world, Contact c) {
        int n = 0;
        for (int i = 0; i < world.size(); i++) {
            n += world.node(i).status().leafSet().contains(c) ? 1 : 0;
        }
        return n;
    }

    /**
     * Cuts the world in two, waits until each side has declared the other dead (a timeout, then a probe of rtoMax; not
     * much longer), and puts {@link #KEYS} values through even gateways: acknowledged by replicas on the even side
     * only. Returns those acknowledged.
     */
    private static Map<Id, Bytes> cutAndPutOnTheEvenSide(VirtualWorld world, EvenOddCut halves, String prefix) {
        world.network().faults(halves);
        halves.cut = true;
        int seconds = 0;
        while (EvenOddCut.crossing(world) > 0 && seconds < 60) {
            world.runFor(SECOND);
            seconds++;
        }
        assertThat(EvenOddCut.crossing(world)).as("leaf-set members across the cut after %d s", seconds).isZero();
        Map<Id, Bytes> acked = new LinkedHashMap<>();
        for (int k = 0; k < KEYS; k++) {
            Id key = Id.ofName(prefix + k);
            Bytes value = Bytes.utf8("v" + k);
            Message put = world.request(2 * (k % (NODES / 2)), new ClientPut(key, value, 3600, Bytes.EMPTY));
            if (put instanceof PutReply p && p.status() == Status.OK) {
                acked.put(key, value);
            }
        }
        assertThat(acked).as("puts acknowledged on the even side").hasSizeGreaterThan(KEYS / 2);
        return acked;
    }
}
