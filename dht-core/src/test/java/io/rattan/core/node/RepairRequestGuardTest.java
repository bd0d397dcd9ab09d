package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The answering side of repair keeps to the node's partners: a stranger's range digest reads nothing (its sums are
 * empty, as they always were), a member's range
 * digest reads only the arc the two share however wide the arc it names, a member has at most
 * {@link RepairAnswers#SCANS_PER_PEER} scans running, and a tombstone (with its remove's secret) is sent back only to a
 * replica of its key, not to another member nor to a stranger. Requests are put on the virtual network by hand, in a converged world of 16 nodes.
 */
class RepairRequestGuardTest {

    private static final long SECOND = 1_000_000_000L;
    /** Every store task takes this long: a scan's length shows how many pages it read. */
    private static final long TASK_NANOS = 20_000_000L;
    private static final int PARTS = 16;

    private final Refusals refusals = new Refusals();
    private int nodes = 16;
    private VirtualWorld world = formed(2);
    /** The target's range-digest replies to the addresses watched, by request id, and when the first came. */
    private final Map<Long, List<Envelope>> seen = new HashMap<>();
    private final Map<Long, Long> seenAtNanos = new HashMap<>();

    /** Repair requests refused, as the node's listener hears of them. */
    private static final class Refusals implements NodeListener {
        int notMember;
        int busy;
        int withheld;

        @Override
        public void repairTombstonesWithheld(int n) {
            withheld += n;
        }

        @Override
        public void repairRequestRefused(boolean busyPeer) {
            if (busyPeer) {
                busy++;
            } else {
                notMember++;
            }
        }
    }

    private VirtualWorld formed(int leafSetHalf) {
        // Anti-entropy every hour: no session of the nodes' own runs while the test asks.
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 1).withLeafSetHalf(leafSetHalf)
                .withPeriods(1_000, 3_600_000, 3_600_000);
        VirtualWorld w = new VirtualWorld(5, config, LatencyModel.constant(1_000_000L), refusals);
        w.deferStoreWork(TASK_NANOS);
        w.addNodes(nodes);
        w.runFor(30 * SECOND);
        return w;
    }

    private void watch(Address... from) {
        List<Address> watched = List.of(from);
        world.network().observer((src, to, e) -> {
            // The test's own request ids are small; the nodes' own sessions draw theirs at random.
            if (watched.contains(to) && src.equals(world.contact(target()).address())
                    && e.body() instanceof RangeDigestReply && e.requestId() >= 0 && e.requestId() < 100) {
                seen.computeIfAbsent(e.requestId(), id -> new ArrayList<>()).add(e);
                seenAtNanos.putIfAbsent(e.requestId(), world.scheduler().nanoTime());
            }
        });
    }

    /** The node every request goes to. */
    private static int target() {
        return 3;
    }

    /** Node indexes in ring order, from the target's clockwise neighbour on. */
    private List<Integer> ringFromTarget() {
        List<Integer> byId = new ArrayList<>(IntStream.range(0, nodes).boxed().toList());
        byId.sort(Comparator.comparing(i -> world.contact(i).id()));
        int at = byId.indexOf(target());
        List<Integer> ring = new ArrayList<>();
        for (int s = 1; s < nodes; s++) {
            ring.add(byId.get((at + s) % nodes));
        }
        return ring;
    }

    /** The {@code n} nodes closest to {@code key}, closest first. */
    private List<Integer> closest(Id key, int n) {
        return IntStream.range(0, nodes).boxed()
                .sorted(Comparator.comparing(i -> world.contact(i).id().distanceTo(key))).limit(n).toList();
    }

    private void send(Contact from, long requestId, io.rattan.core.msg.Message m) {
        Transport t = world.network().transportFor(from.address());
        t.send(world.contact(target()).address(), new Envelope(from, requestId, m));
    }

    private static RangeDigest wholeRing() {
        return new RangeDigest(Id.ZERO, Id.ZERO, false, Collections.nCopies(PARTS, new RangeSum(0, 0)));
    }

    @Test
    void aStrangersRangeOfTheWholeRingReadsNothing() {
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        SplittableRandom random = new SplittableRandom(9);
        for (int i = 0; i < 32 * LocalReplica.SCAN_PAGE; i++) {
            world.store(target()).write(StoredRecord.value(Id.random(random), Bytes.utf8("v" + i), expires,
                    Bytes.EMPTY));
        }
        // Across the ring from the target: a node that hears from a peer adds it to its leaf set if it is near.
        Id far = world.contact(target()).id().plus(new Id(Long.MIN_VALUE, 0, 0));
        Contact stranger = new Contact(far, new Address("stranger", 4000));
        List<Envelope> heard = new ArrayList<>();
        long[] heardAt = new long[1];
        world.network().listen(stranger.address(), e -> {
            heard.add(e);
            heardAt[0] = world.scheduler().nanoTime();
        });
        long sent = world.scheduler().nanoTime();

        send(stranger, 1, wholeRing());
        world.runFor(10 * SECOND);

        assertThat(heard).extracting(Envelope::body).containsExactly(new RangeDigestReply(Collections.nCopies(PARTS,
                new RangeSum(0, 0))));
        assertThat(heardAt[0] - sent).as("answered without a store task").isLessThan(TASK_NANOS);
        assertThat(refusals.notMember).isEqualTo(1);
    }

    @Test
    void aMembersRangeOfTheWholeRingReadsOnlyTheArcTheyShare() {
        SplittableRandom random = new SplittableRandom(7);
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        int records = 32 * LocalReplica.SCAN_PAGE;
        List<Id> keys = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            Id key = Id.random(random);
            keys.add(key);
            world.store(target()).write(StoredRecord.value(key, Bytes.utf8("v" + i), expires, Bytes.EMPTY));
        }
        int partner = ringFromTarget().get(0);
        Contact member = world.contact(partner);
        watch(member.address());
        long sent = world.scheduler().nanoTime();

        send(member, 11, wholeRing());
        world.runFor(60 * SECOND);

        RangeDigestReply reply = (RangeDigestReply) seen.get(11L).get(0).body();
        long shared = keys.stream().filter(k -> closest(k, 2).containsAll(List.of(target(), partner))).count();
        assertThat(reply.parts().stream().mapToLong(RangeSum::count).sum()).as("keys both hold").isEqualTo(shared);
        // Reading every record takes 32 pages, a task each; the arc two neighbours share is about three sixteenths.
        assertThat(seenAtNanos.get(11L) - sent).as("the scan's length").isLessThan(12 * TASK_NANOS);
    }

    /**
     * Six places apart in a leaf set of six a side, with k = 2, the two share no key, and the arc between their
     * replica sets' ends wraps round most of the ring: such a member's whole-ring range read nearly every record.
     */
    @Test
    void aMemberTooFarToShareAKeyMakesItReadNothing() {
        nodes = 32;
        world = formed(6);
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 32 * LocalReplica.SCAN_PAGE; i++) {
            world.store(target()).write(StoredRecord.value(Id.random(random), Bytes.utf8("v" + i), expires,
                    Bytes.EMPTY));
        }
        Contact far = world.contact(ringFromTarget().get(5));
        watch(far.address());
        long sent = world.scheduler().nanoTime();

        send(far, 12, wholeRing());
        world.runFor(10 * SECOND);

        RangeDigestReply reply = (RangeDigestReply) seen.get(12L).get(0).body();
        assertThat(reply.parts()).containsOnly(new RangeSum(0, 0));
        assertThat(seenAtNanos.get(12L) - sent).as("answered without a store task").isLessThan(TASK_NANOS);
        assertThat(refusals.notMember).as("a member, not a stranger").isZero();
    }

    @Test
    void aMemberHasAtMostTwoScansRunning() {
        Contact member = world.contact(ringFromTarget().get(0));
        watch(member.address());

        for (long id = 21; id <= 24; id++) {
            send(member, id, wholeRing());
        }
        world.runFor(10 * SECOND);
        send(member, 25, wholeRing());
        world.runFor(10 * SECOND);

        assertThat(seen.keySet()).containsExactlyInAnyOrder(21L, 22L, 25L);
        assertThat(refusals.busy).isEqualTo(2);
    }

    @Test
    void aTombstoneGoesBackOnlyToAReplicaOfItsKey() {
        Id key = world.contact(target()).id().plus(new Id(0, 0, 1));
        List<Integer> replicasAndNext = closest(key, 3);
        assertThat(replicasAndNext.get(0)).isEqualTo(target());
        int replica = replicasAndNext.get(1);
        List<Integer> leaf = new ArrayList<>(ringFromTarget().subList(0, 2));
        leaf.addAll(ringFromTarget().subList(nodes - 3, nodes - 1));
        int member = leaf.stream().filter(i -> !replicasAndNext.contains(i)).findFirst().orElseThrow();
        Bytes valueHash = Bytes.utf8("removed").sha256();
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        StoredRecord removed = StoredRecord.tombstone(key, valueHash, expires, Bytes.utf8("the secret"));
        world.store(target()).write(removed);
        Map<Address, Integer> tombstonesTo = new HashMap<>();
        world.network().observer((src, to, e) -> {
            if (src.equals(world.contact(target()).address()) && e.body() instanceof StoreReplicas s) {
                s.records().stream().filter(r -> r.key().equals(key) && r.tombstone())
                        .forEach(r -> tombstonesTo.merge(to, 1, Integer::sum));
            }
        });
        // A live copy of the value the tombstone removed: a digest names it by its slot, the tombstone's.
        Digest live = new Digest(List.of(new DigestEntry(key, removed.slot(), false)));

        Contact stranger = new Contact(key.plus(new Id(Long.MIN_VALUE, 0, 0)), new Address("stranger", 4000));
        world.network().listen(stranger.address(), e -> { });

        send(world.contact(member), 31, live);
        send(world.contact(replica), 32, live);
        send(stranger, 33, live);
        world.runFor(10 * SECOND);

        assertThat(tombstonesTo).containsOnlyKeys(world.contact(replica).address());
        assertThat(refusals.withheld).as("tombstones withheld, from the member and the stranger").isEqualTo(2);
    }
}
