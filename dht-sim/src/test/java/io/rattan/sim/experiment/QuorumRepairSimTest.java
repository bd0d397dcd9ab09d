package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Quorum gets in the simulator: a replica loses power and comes back (same id) before its neighbours notice it was
 * gone, with what it had synced but without its last writes. No leaf-set change sends it anything, its repair
 * sessions count more than half the records its neighbours hold (so no neighbour owes it one, as one that lost most of
 * its disk is owed), and anti-entropy is a week apart. A quorum get of every R = k replicas puts each value it reads back on it; the values that were only read
 * from one replica are not, which shows nothing else did. Deterministic: one seed, virtual time.
 */
class QuorumRepairSimTest {

    private static final int K = 4;
    private static final long SECOND = 1_000_000_000L;
    private static final long SYNC_SECONDS = 120;

    @Test
    void quorumGetsPutBackWhatAReplicaLostAndGetsOfOneReplicaDoNot() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(4).withReplicas(K, 2)
                .withPeriods(1_000, 7L * 24 * 3600 * 1000, 10_000);
        VirtualWorld world = new VirtualWorld(11, config, LatencyModel.constant(5_000_000L));
        world.enableFaults(SYNC_SECONDS * 1_000, PlantedBugs.NONE);
        world.addNodes(40);
        // Every gateway ready: its expiry clock has heard a peer, so it may stamp puts (Clock#mayStamp).
        assertThat(world.runUntil(() -> IntStream.range(0, world.size()).allMatch(i -> world.node(i).isReady()),
                30 * SECOND)).isTrue();
        List<Id> synced = put(world, "quorum-sim-synced-", 700);
        // Past the next sync: the disk keeps these. The values below are put and checked before the sync after it.
        long sync = SYNC_SECONDS * SECOND;
        world.runFor(sync - world.scheduler().nanoTime() % sync + SECOND);
        long putFrom = world.scheduler().nanoTime();
        List<Id> keys = put(world, "quorum-sim-", 300);
        world.runFor(5 * SECOND);
        int victim = 7;
        List<Id> held = keys.stream().filter(k -> replicasOf(world, k).contains(victim)).collect(Collectors.toList());
        assertThat(held).as("values node %d is a replica of", victim).hasSizeGreaterThan(20);
        assertThat(held).allMatch(k -> holds(world, victim, k));
        assertThat(world.scheduler().nanoTime() - putFrom).as("the unsynced writes' time").isLessThan(sync - SECOND);

        world.crash(victim, VirtualWorld.Disk.UNSYNCED_LOST);
        world.restart(victim);
        assertThat(world.runUntil(() -> world.node(victim).isJoined(), 30 * SECOND)).isTrue();
        assertThat(synced).as("synced values node %d kept", victim).anyMatch(k -> holds(world, victim, k));
        // Past the settling window of the restart (GetAnswers.settled): until then a get of consistency one reads
        // three replicas and repairs what differs, as a quorum get does; this test compares the two when settled.
        world.runFor(Math.max(5 * SECOND, config.settlingMillis() * 1_000_000L));
        assertThat(held).as("nothing put the lost copies back").noneMatch(k -> holds(world, victim, k));

        List<Id> quorumRead = held.subList(0, held.size() / 2);
        List<Id> oneRead = held.subList(held.size() / 2, held.size());
        long quorumMessages = 0;
        for (Id k : quorumRead) {
            GetReply r = get(world, k, new ClientGet(k, 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.DEFAULT).withQuorum(K)));
            assertThat(r.status()).isEqualTo(Status.OK);
            assertThat(r.replicasRead()).isEqualTo(K);
            assertThat(valuesOf(r)).as("quorum get of %s", k.shortHex()).containsExactly(value(k));
            quorumMessages += r.cost().messages();
        }
        long oneMessages = 0;
        int oneEmpty = 0;
        for (Id k : oneRead) {
            GetReply r = get(world, k, ClientGet.of(k));
            oneMessages += r.cost().messages();
            // The replica that lost power answers without its unsynced writes when the get reaches it first as root.
            oneEmpty += valuesOf(r).isEmpty() ? 1 : 0;
        }
        world.runFor(5 * SECOND);

        System.out.printf("quorum sim: node %d lost %d values; R = %d quorum gets of %d of them: %.1f messages each; "
                        + "gets of one replica of the other %d: %.1f messages each, %d answered empty%n", victim,
                held.size(), K, quorumRead.size(), (double) quorumMessages / quorumRead.size(), oneRead.size(),
                (double) oneMessages / oneRead.size(), oneEmpty);
        assertThat(quorumRead).as("back on the replica that lost them").allMatch(k -> holds(world, victim, k));
        assertThat(oneRead).as("still missing there: a get of one replica repairs nothing")
                .noneMatch(k -> holds(world, victim, k));
    }

    private static List<Id> put(VirtualWorld world, String prefix, int n) {
        List<Id> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Id key = Id.ofName(prefix + i);
            Message put = world.request(i % world.size(), new ClientPut(key, value(key), 3600, Bytes.EMPTY));
            assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
            keys.add(key);
        }
        return keys;
    }

    private static Bytes value(Id key) {
        return Bytes.utf8("value of " + key.toHex());
    }

    /** Gets {@code key} through a random live node. */
    private static GetReply get(VirtualWorld world, Id key, ClientGet request) {
        List<Integer> live = world.liveIndexes();
        int gateway = live.get(world.random().nextInt(live.size()));
        Message r = world.request(gateway, request);
        assertThat(r).as("get of %s through node %d", key.shortHex(), gateway).isInstanceOf(GetReply.class);
        return (GetReply) r;
    }

    private static List<Bytes> valuesOf(GetReply r) {
        return r.values().stream().map(ValueEntry::value).collect(Collectors.toList());
    }

    private static boolean holds(VirtualWorld world, int node, Id key) {
        return world.store(node).read(key, value(key).sha256()).isPresent();
    }

    /** The k live nodes closest to {@code key}. */
    private static List<Integer> replicasOf(VirtualWorld world, Id key) {
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.sort((a, b) -> {
            Id ia = world.contact(a).id();
            Id ib = world.contact(b).id();
            return ia.equals(ib) ? 0 : ia.isCloserTo(key, ib) ? -1 : 1;
        });
        return live.subList(0, K);
    }
}
