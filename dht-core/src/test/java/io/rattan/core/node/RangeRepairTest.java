package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualNetwork;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Range-digest repair between two replicas in the virtual world, on stores loaded directly: what it costs when
 * nothing differs (it must not grow with the store), that it sends only what is missing, never more than its window
 * of unacknowledged pages, that it finishes after a spell in which its acknowledgements were lost, and that a lost
 * digest costs a resend, not a session.
 */
class RangeRepairTest {

    private static final long SECOND = 1_000_000_000L;
    private static final EnumSet<MessageType> REPAIR = EnumSet.of(MessageType.RANGE_DIGEST,
            MessageType.RANGE_DIGEST_REPLY, MessageType.DIGEST, MessageType.DIGEST_WANT, MessageType.STORE_REPLICAS,
            MessageType.STORE_ACK);

    /** Two replicas of everything: leaf set 1 per side, k = 2, anti-entropy every 5 s. */
    private static VirtualWorld pair(long seed) {
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(1).withPeriods(1_000, 5_000,
                10_000);
        VirtualWorld world = new VirtualWorld(seed, config, LatencyModel.constant(10_000_000L));
        world.addNodes(2);
        world.runFor(10 * SECOND);
        return world;
    }

    private static List<StoredRecord> records(int n, int valueBytes, long expiresAt, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<StoredRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[valueBytes];
            random.nextBytes(v);
            out.add(StoredRecord.value(Id.random(random), Bytes.wrap(v), expiresAt, Bytes.EMPTY));
        }
        return out;
    }

    /** {@code n} records of a day's TTL, written to the first replica's store only. */
    private static List<StoredRecord> onFirstReplica(VirtualWorld world, int n, int valueBytes, long seed) {
        List<StoredRecord> all = records(n, valueBytes, world.scheduler().epochMillis() + 86_400_000L, seed);
        for (StoredRecord r : all) {
            world.store(0).write(r);
        }
        return all;
    }

    /** Bytes of repair messages per type sent in the world while it runs, and how many of them. */
    private static final class Meter implements VirtualNetwork.Observer {
        final MessageCodec codec = new MessageCodec();
        final Map<MessageType, long[]> byType = new EnumMap<>(MessageType.class);
        boolean on = true;

        @Override
        public void sent(Address from, Address to, Envelope e) {
            if (on && REPAIR.contains(e.body().type())) {
                long[] c = byType.computeIfAbsent(e.body().type(), t -> new long[2]);
                c[0]++;
                c[1] += codec.encodedSize(e);
            }
        }

        long bytes() {
            return byType.values().stream().mapToLong(c -> c[1]).sum();
        }
    }

    /** Repair bytes over 12 anti-entropy rounds (60 s) of two replicas that hold the same {@code n} records. */
    static long steadyBytes(int n, Map<MessageType, long[]> byType) {
        VirtualWorld world = pair(7);
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        for (StoredRecord r : records(n, 16, expires, 3)) {
            world.store(0).write(r);
            world.store(1).write(r);
        }
        world.runFor(10 * SECOND);
        Meter meter = new Meter();
        world.network().observer(meter);
        world.runFor(60 * SECOND);
        byType.putAll(meter.byType);
        return meter.bytes();
    }

    @Test
    void whenNothingDiffersRepairBytesPerRoundDoNotGrowWithTheStore() {
        Map<MessageType, long[]> small = new EnumMap<>(MessageType.class);
        Map<MessageType, long[]> large = new EnumMap<>(MessageType.class);
        long smallBytes = steadyBytes(1_000, small);
        long largeBytes = steadyBytes(100_000, large);

        assertThat(smallBytes).as("range digests were exchanged").isPositive();
        assertThat(small.keySet()).containsOnly(MessageType.RANGE_DIGEST, MessageType.RANGE_DIGEST_REPLY);
        assertThat(largeBytes).as("repair bytes over 60 s, 10^5 records vs 10^3").isEqualTo(smallBytes);
    }

    /**
     * The measurement behind docs/testing.md's figure, too heavy for CI: {@code -Drattan.repair.records=1000000}
     * (give surefire's fork a heap of a few GB with {@code -DargLine=-Xmx5g}).
     */
    @Test
    @EnabledIfSystemProperty(named = "rattan.repair.records", matches = "\\d+")
    void repairBytesAtALargeStore() {
        int n = Integer.parseInt(System.getProperty("rattan.repair.records"));
        Map<MessageType, long[]> small = new EnumMap<>(MessageType.class);
        Map<MessageType, long[]> large = new EnumMap<>(MessageType.class);
        long smallBytes = steadyBytes(1_000, small);
        long largeBytes = steadyBytes(n, large);
        System.out.printf("repair bytes over 60 s (12 rounds, 2 replicas): %d at 1000 records, %d at %d records%n",
                smallBytes, largeBytes, n);
        assertThat(largeBytes).isEqualTo(smallBytes);
    }

    @Test
    void onlyTheMissingRecordsAreStreamedWithinTheWindowOfUnacknowledgedPages() {
        VirtualWorld world = pair(11);
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        List<StoredRecord> all = records(5_000, 1024, expires, 5);
        int missing = 1_500;
        for (int i = 0; i < all.size(); i++) {
            world.store(0).write(all.get(i));
            if (i >= missing) {
                world.store(1).write(all.get(i));
            }
        }
        Address a = world.contact(0).address();
        Address b = world.contact(1).address();
        Meter meter = new Meter();
        int[] unacked = new int[2];
        world.network().observer((from, to, e) -> {
            meter.sent(from, to, e);
            if (from.equals(a) && e.body().type() == MessageType.STORE_REPLICAS) {
                unacked[0]++;
                unacked[1] = Math.max(unacked[1], unacked[0]);
            } else if (from.equals(b) && e.body().type() == MessageType.STORE_ACK) {
                unacked[0]--;
            }
        });

        world.runFor(60 * SECOND);

        for (StoredRecord r : all) {
            assertThat(world.store(1).read(r.key(), r.slot())).as("record on the second replica").isPresent();
        }
        long pushed = meter.byType.get(MessageType.STORE_REPLICAS)[1];
        assertThat(pushed).as("bytes pushed for %d missing 1 KiB records", missing)
                .isBetween(missing * 1024L, missing * 1300L);
        assertThat(unacked[1]).as("most pages in flight at once").isBetween(1, ReplicaStream.WINDOW);
    }

    /** Half of what the receiver sends is lost for 30 s: pages go unacknowledged, are sent again, stall, resume. */
    @Test
    void aStreamWhoseAcknowledgementsWereLostFinishesAfterwards() {
        VirtualWorld world = pair(13);
        List<StoredRecord> all = onFirstReplica(world, 3_000, 1024, 9);
        Address b = world.contact(1).address();
        AtomicBoolean cut = new AtomicBoolean(true);
        long[] sent = new long[1];
        world.network().faults(new LosingLinks() {
            @Override
            boolean lost(Address from, Address to) {
                // The second replica stores what it is sent, but every other message it sends is lost.
                return cut.get() && from.equals(b) && (++sent[0] & 1) == 0;
            }
        });
        world.runFor(30 * SECOND);
        assertThat(world.store(1).size()).as("records through while answers were lost").isLessThan(all.size());
        cut.set(false);
        world.runFor(120 * SECOND);

        for (StoredRecord r : all) {
            assertThat(world.store(1).read(r.key(), r.slot())).as("record on the second replica").isPresent();
        }
    }

    /**
     * A third of the digests and their answers are lost, each for good. When a session waited out each loss (5 s, then
     * 10, 20 ...) and failed, 1,859 of the 3,000 records were still missing after 60 s; each loss now costs a resend
     * ({@link ResentRequest}).
     */
    @Test
    void aLostDigestOrAnswerCostsAResendNotTheSession() {
        VirtualWorld world = pair(19);
        List<StoredRecord> all = onFirstReplica(world, 3_000, 100, 21);
        EnumSet<MessageType> digests = EnumSet.of(MessageType.RANGE_DIGEST, MessageType.RANGE_DIGEST_REPLY,
                MessageType.DIGEST, MessageType.DIGEST_WANT);
        SplittableRandom losses = new SplittableRandom(23);
        MessageType[] sending = new MessageType[1];
        int[] lost = new int[1];
        // The network asks the observer first, then the faults, for each message sent.
        world.network().observer((from, to, e) -> sending[0] = e.body().type());
        world.network().faults(new LosingLinks() {
            @Override
            boolean lost(Address from, Address to) {
                boolean lose = digests.contains(sending[0]) && losses.nextInt(3) == 0;
                lost[0] += lose ? 1 : 0;
                return lose;
            }
        });

        world.runFor(60 * SECOND);

        assertThat(lost[0]).as("digests and answers lost").isPositive();
        long lacking = all.stream().filter(r -> world.store(1).read(r.key(), r.slot()).isEmpty()).count();
        assertThat(lacking).as("records the second replica lacks 60 s after they were written to the first, of %d",
                all.size()).isZero();
    }

    /**
     * A replica that restarts on a lost disk before its neighbour notices it was gone changes nobody's view, so nobody
     * starts a session toward it; the sessions it starts itself stream only what it holds, nothing. The neighbour that
     * answers its range digest with more records than it was sent is owed a session toward it
     * ({@link RepairAnswers#answerRangeDigest}): it holds everything again within seconds, not at the neighbour's
     * next anti-entropy turn (a minute here). Fault simulator, seed 547 of 51–2,050.
     */
    @Test
    void aReplicaRestartedOnALostDiskIsRepairedByTheNeighboursItsSessionsAsk() {
        assertRepairedAfterALostDisk(0);
    }

    /**
     * As above, but puts (or another neighbour's session) reach the restarted replica before its own sessions run, so
     * its range digests count a few records, not none: it is still owed a session. Fault simulator, seed 1157 of
     * 51–2,050: the neighbour whose session came first left the replica non-empty, and the key's holders owed it none.
     */
    @Test
    void aReplicaRestartedOnALostDiskThatTookAFewPutsFirstIsStillRepaired() {
        assertRepairedAfterALostDisk(20);
    }

    /** Restarts the second of two replicas on a lost disk, writes {@code fresh} records to both, and waits 5 s. */
    private static void assertRepairedAfterALostDisk(int fresh) {
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(1).withPeriods(1_000, 60_000,
                10_000);
        VirtualWorld world = new VirtualWorld(5, config, LatencyModel.constant(10_000_000L));
        world.enableFaults(1, PlantedBugs.NONE);
        world.addNodes(2);
        world.runFor(10 * SECOND);
        List<StoredRecord> all = new ArrayList<>(records(300, 16, world.scheduler().epochMillis() + 86_400_000L, 9));
        all.forEach(r -> writeToBoth(world, r));
        world.runFor(61 * SECOND);

        world.crash(1, VirtualWorld.Disk.LOST);
        world.restart(1);
        assertThat(world.store(1).size()).as("the disk lost").isZero();
        for (StoredRecord r : records(fresh, 4, world.scheduler().epochMillis() + 86_400_000L, 11)) {
            writeToBoth(world, r);
            all.add(r);
        }
        world.runFor(5 * SECOND);

        assertThat(world.store(1).size()).as("records back on the restarted replica").isEqualTo(all.size());
    }

    private static void writeToBoth(VirtualWorld world, StoredRecord r) {
        world.store(0).write(r);
        world.store(1).write(r);
    }
}
