package io.rattan.core.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The pieces that let the virtual world scale: addresses past 65,535 nodes, the event heap, joins in waves. */
class ScaleStructuresTest {

    @Test
    void addressesCarryTheIndexPastThePortRange() {
        for (int i : new int[] {0, 1, 65_533, 65_534, 65_535, 65_536, 99_999, 1_000_000}) {
            Address a = VirtualAddresses.of("node", i);
            assertThat(VirtualAddresses.index(a)).isEqualTo(i);
            assertThat(a.port()).isBetween(1, 65_535);
        }
        assertThat(VirtualAddresses.of("node", 41)).isEqualTo(new Address("node41", 42));
        assertThat(VirtualAddresses.index(new Address("x", 0))).isEqualTo(-1);
        // Several processes of one /64: each host still ends in its index.
        assertThat(VirtualAddresses.at("fd00:0:0:39::17", 17)).isEqualTo(new Address("fd00:0:0:39::17", 18));
        assertThatThrownBy(() -> VirtualAddresses.at("node3", 4)).hasMessageContaining("must end in its index 4");
    }

    @Test
    void theEventHeapPollsInTimeThenSequenceOrderLikeAPriorityQueue() {
        SplittableRandom random = new SplittableRandom(7);
        EventHeap<long[]> heap = new EventHeap<>();
        PriorityQueue<long[]> reference = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : Long.compare(a[1], b[1]));
        long seq = 0;
        for (int round = 0; round < 20_000; round++) {
            if (random.nextInt(3) > 0 || heap.isEmpty()) {
                long[] item = {random.nextLong(50), seq++};
                heap.add(item[0], item[1], item);
                reference.add(item);
            } else {
                assertThat(heap.peekTime()).isEqualTo(reference.peek()[0]);
                assertThat(heap.poll()).isSameAs(reference.poll());
            }
            assertThat(heap.size()).isEqualTo(reference.size());
        }
    }

    @Test
    void theLongMapAgreesWithAHashMap() {
        SplittableRandom random = new SplittableRandom(11);
        LongLongMap map = new LongLongMap();
        Map<Long, Long> reference = new HashMap<>();
        for (int i = 0; i < 100_000; i++) {
            long key = ((long) random.nextInt(64) << 32) | random.nextInt(64);
            switch (random.nextInt(3)) {
                case 0 -> {
                    map.put(key, i);
                    reference.put(key, (long) i);
                }
                case 1 -> {
                    map.remove(key);
                    reference.remove(key);
                }
                default -> assertThat(map.get(key, -1)).isEqualTo(reference.getOrDefault(key, -1L));
            }
            assertThat(map.size()).isEqualTo(reference.size());
        }
    }

    @Test
    void theLongMapDropsEntriesBelowTheFloorInsteadOfGrowing() {
        LongLongMap map = new LongLongMap();
        for (long t = 0; t < 1_000_000; t++) {
            // Link t % 1000 gets time t; anything before t - 10 is stale.
            map.put(t % 1000 + ((t / 1000) << 32), t, t - 10);
            assertThat(map.get(t % 1000 + ((t / 1000) << 32), -1)).isEqualTo(t);
        }
        // A million distinct keys went in; only the last few are fresh, so the table never grew past its start.
        assertThat(map.size()).isLessThanOrEqualTo(32);
        for (long t = 999_990; t < 1_000_000; t++) {
            assertThat(map.get(t % 1000 + ((t / 1000) << 32), -1)).isEqualTo(t);
        }
    }

    @Test
    void aLargeWaveEndsWithoutWaitingForItsLastFewJoiners() {
        // Node 1030, in the wave of 1,024 that follows 1,024 joined nodes, can send nothing: it never joins.
        Address cut = VirtualAddresses.of("node", 1030);
        LatencyModel latency = new LatencyModel() {
            public long delayNanos(Address from, Address to, RandomGenerator random) {
                return 20_000_000L;
            }

            public boolean drops(Address from, Address to, RandomGenerator random) {
                return from.equals(cut);
            }
        };
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults(), latency);
        List<long[]> waves = new ArrayList<>();
        int late = world.addNodesInWaves(2048, 1024, (size, virtualNanos, lateInWave) ->
                waves.add(new long[] {size, virtualNanos, lateInWave}));

        assertThat(late).isEqualTo(1);
        long[] last = waves.get(waves.size() - 1);
        assertThat(last[0]).isEqualTo(1024);
        assertThat(last[2]).isEqualTo(1);
        // The wave ended once the other 1,023 had joined, long before a join attempt could even time out twice.
        assertThat(last[1]).isLessThan(10_000_000_000L);
        assertThat(world.node(1030).isJoined()).isFalse();
    }

    @Test
    void nodesJoinedInWavesServePutsAndGets() {
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults(), LatencyModel.constant(20_000_000L));
        List<Integer> waves = new ArrayList<>();
        assertThat(world.addNodesInWaves(300, 64, (size, virtualNanos, late) -> {
            assertThat(virtualNanos).isPositive();
            assertThat(late).isZero();
            waves.add(size);
        })).isZero();
        assertThat(world.size()).isEqualTo(300);
        // One node starts the overlay; each wave at most doubles it, and none is larger than 64.
        assertThat(waves).startsWith(1, 2, 4, 8, 16, 32, 64, 64);
        assertThat(waves.stream().mapToInt(Integer::intValue).sum()).isEqualTo(299);
        for (int i = 0; i < world.size(); i++) {
            assertThat(world.node(i).isJoined()).isTrue();
        }
        world.runFor(10_000_000_000L);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 50; i++) {
            Id key = Id.random(random);
            Bytes value = Bytes.utf8("v" + i);
            Message put = world.request(random.nextInt(300), new ClientPut(key, value, 3600, Bytes.EMPTY));
            assertThat(put).isInstanceOf(PutReply.class);
            assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
            Message get = world.request(random.nextInt(300), ClientGet.of(key));
            assertThat(get).isInstanceOf(GetReply.class);
            assertThat(((GetReply) get).values()).extracting(v -> v.value()).containsExactly(value);
        }
    }
}
