package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualScheduler;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Owned values on virtual nodes: a higher sequence replaces the lower on every replica, the owner learns of a
 * conflict, a replica refuses what its owner did not sign or an expiry out of bounds, and a replica that was down
 * while a newer sequence was written never brings the old one back.
 */
class OwnedValuesTest {

    private static final long MS = 1_000_000L;
    private static final Bytes OWNER = Bytes.fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    private static final Bytes OTHER = Bytes.fromHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
    private static final Id KEY = Id.ofName("owned");
    private static final long VALUE_ID = 7;
    private static final long T0_MILLIS = 1_700_000_000_000L;
    /** For the tests of one replica, whose clock never moves: an hour after it. */
    private static final long EXPIRY = T0_MILLIS / 1000 + 3600;
    private static final Bytes SLOT = OwnedSlot.of(SignedBytes.DEFAULT_NAMESPACE, OwnerSignatures.publicKey(OWNER),
            VALUE_ID);

    private static OwnerStamp stamp(Bytes owner, SignedOp op, long seq, long expirySeconds, Bytes data) {
        return OwnerSignatures.sign(owner, op, SignedBytes.DEFAULT_NAMESPACE, KEY, VALUE_ID, seq, expirySeconds,
                data.sha256());
    }

    private static ClientPut put(long seq, long expirySeconds, String data) {
        Bytes d = Bytes.utf8(data);
        return new ClientPut(KEY, d, 0, Bytes.EMPTY, stamp(OWNER, SignedOp.PUT, seq, expirySeconds, d));
    }

    private static VirtualWorld world() {
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults(), LatencyModel.constant(MS));
        world.addNodes(12);
        world.runFor(Duration.ofSeconds(10).toNanos());
        return world;
    }

    private static long inAnHour(VirtualWorld world) {
        return world.scheduler().epochMillis() / 1000 + 3600;
    }

    private static PutReply putAt(VirtualWorld world, int gateway, ClientPut put) {
        Message reply = world.request(gateway, put);
        assertThat(reply).isInstanceOf(PutReply.class);
        return (PutReply) reply;
    }

    private static List<ValueEntry> get(VirtualWorld world, int gateway) {
        Message reply = world.request(gateway, ClientGet.of(KEY));
        assertThat(reply).isInstanceOf(GetReply.class);
        assertThat(((GetReply) reply).status()).isEqualTo(Status.OK);
        return ((GetReply) reply).values();
    }

    /** The owned records the live nodes hold under the key. */
    private static List<StoredRecord> held(VirtualWorld world) {
        List<StoredRecord> out = new ArrayList<>();
        for (int n : world.liveIndexes()) {
            for (StoredRecord r : world.store(n).scanKey(io.rattan.core.store.Store.Cursor.atKey(KEY), 16)) {
                if (r.key().equals(KEY) && r.isOwned()) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    @Test
    void aHigherSequenceReplacesTheLowerEverywhereAndConflictsAreRefused() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        assertThat(putAt(world, 0, put(1, expiry, "v1")).status()).isEqualTo(Status.OK);
        List<ValueEntry> first = get(world, 5);
        assertThat(first).hasSize(1);
        assertThat(first.get(0).value()).isEqualTo(Bytes.utf8("v1"));
        assertThat(first.get(0).stamp().seq()).isEqualTo(1);

        PutReply second = putAt(world, 3, put(2, expiry, "v2"));
        assertThat(second.status()).as(second.detail()).isEqualTo(Status.OK);
        assertThat(second.replicas()).isGreaterThanOrEqualTo(2);
        world.runFor(Duration.ofSeconds(5).toNanos());
        for (int gateway : List.of(0, 4, 8, 11)) {
            List<ValueEntry> values = get(world, gateway);
            assertThat(values).as("gateway %d", gateway).hasSize(1);
            assertThat(values.get(0).value()).isEqualTo(Bytes.utf8("v2"));
            assertThat(values.get(0).stamp()).isEqualTo(put(2, expiry, "v2").stamp());
        }
        assertThat(held(world)).hasSize(NodeConfig.defaults().replicas())
                .allSatisfy(r -> assertThat(r.seq()).isEqualTo(2));

        assertThat(putAt(world, 1, put(2, expiry, "v2")).status()).as("the same version again").isEqualTo(Status.OK);
        PutReply conflict = putAt(world, 1, put(2, expiry, "other"));
        assertThat(conflict.status()).isEqualTo(Status.CONFLICT);
        assertThat(conflict.currentSeq()).isEqualTo(2L);
        PutReply stale = putAt(world, 2, put(1, expiry + 60, "v1"));
        assertThat(stale.status()).isEqualTo(Status.CONFLICT);
        assertThat(stale.currentSeq()).isEqualTo(2L);

        long before = get(world, 6).get(0).ttlRemainingMillis();
        assertThat(putAt(world, 6, put(2, expiry + 600, "v2")).status()).as("extended").isEqualTo(Status.OK);
        assertThat(get(world, 6).get(0).ttlRemainingMillis()).isGreaterThan(before + 500_000);
    }

    /** Compare-and-swap at the root: If-None-Match, If-Match, a retried swap, and two swappers racing. */
    @Test
    void conditionalPutsSwapOnlyTheVersionTheyName() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        assertThat(putAt(world, 0, conditional(put(1, expiry, "v1"), PutCondition.ABSENT)).status())
                .isEqualTo(Status.OK);
        PutReply exists = putAt(world, 1, conditional(put(2, expiry, "other"), PutCondition.ABSENT));
        assertThat(exists.status()).isEqualTo(Status.PRECONDITION_FAILED);
        assertThat(exists.currentSeq()).isEqualTo(1L);
        PutReply none = putAt(world, 1, new ClientPut(Id.ofName("nothing here"), Bytes.utf8("x"), 0, Bytes.EMPTY,
                OwnerSignatures.sign(OWNER, SignedOp.PUT, SignedBytes.DEFAULT_NAMESPACE, Id.ofName("nothing here"),
                        VALUE_ID, 2, expiry, Bytes.utf8("x").sha256()), PutCondition.ifSeq(1)));
        assertThat(none.status()).isEqualTo(Status.PRECONDITION_FAILED);
        assertThat(none.currentSeq()).as("none held").isNull();

        // Two writers read sequence 1 and race to replace it: one wins, the other learns the winner's sequence.
        ClientPut a = conditional(put(2, expiry, "writer a"), PutCondition.ifSeq(1));
        ClientPut b = conditional(put(2, expiry, "writer b"), PutCondition.ifSeq(1));
        Message[] replies = new Message[2];
        world.scheduler().execute(() -> world.node(3).handleClient(a, m -> replies[0] = m));
        world.scheduler().execute(() -> world.node(9).handleClient(b, m -> replies[1] = m));
        assertThat(world.runUntil(() -> replies[0] != null && replies[1] != null, Duration.ofSeconds(30).toNanos()))
                .isTrue();
        List<Status> outcomes = List.of(((PutReply) replies[0]).status(), ((PutReply) replies[1]).status());
        assertThat(outcomes).containsExactlyInAnyOrder(Status.OK, Status.PRECONDITION_FAILED);
        ClientPut winner = outcomes.get(0) == Status.OK ? a : b;
        assertThat(putAt(world, 5, winner).status()).as("the winner's swap, retried elsewhere").isEqualTo(Status.OK);
        world.runFor(Duration.ofSeconds(5).toNanos());
        assertThat(get(world, 7)).extracting(ValueEntry::value).containsExactly(winner.value());

        Message unowned = world.request(2, new ClientPut(KEY, Bytes.utf8("anon"), 60, Bytes.EMPTY, null,
                PutCondition.ABSENT));
        assertThat(unowned).extracting("status").isEqualTo(Status.BAD_REQUEST);
    }

    /**
     * A root that lacks the newest version (as a node that just became root, not repaired yet) reads the slot from a
     * majority of the replicas before it judges a swap: a swap from the older sequence is refused with the newer one.
     */
    @Test
    void aRootThatLacksTheNewestVersionReadsItBeforeDecidingASwap() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        ClientPut v1 = put(1, expiry, "v1");
        assertThat(putAt(world, 0, conditional(v1, PutCondition.ABSENT)).status()).isEqualTo(Status.OK);
        assertThat(putAt(world, 1, conditional(put(2, expiry, "v2"), PutCondition.ifSeq(1))).status())
                .isEqualTo(Status.OK);
        world.runFor(Duration.ofSeconds(5).toNanos());
        int root = world.liveIndexes().stream().min((a, b) -> world.contact(a).id().equals(world.contact(b).id()) ? 0
                : world.contact(a).id().isCloserTo(KEY, world.contact(b).id()) ? -1 : 1).orElseThrow();
        world.store(root).write(StoredRecord.owned(KEY, SLOT, v1.value(), v1.stamp(), false));

        PutReply stale = putAt(world, 5, conditional(put(3, expiry, "from v1"), PutCondition.ifSeq(1)));
        assertThat(stale.status()).as(stale.detail()).isEqualTo(Status.PRECONDITION_FAILED);
        assertThat(stale.currentSeq()).isEqualTo(2L);
        assertThat(world.store(root).read(KEY, SLOT)).get().extracting(StoredRecord::seq).as("read back")
                .isEqualTo(2L);
        assertThat(putAt(world, 5, conditional(put(3, expiry, "from v2"), PutCondition.ifSeq(2))).status())
                .isEqualTo(Status.OK);
        assertThat(get(world, 9)).extracting(ValueEntry::value).containsExactly(Bytes.utf8("from v2"));
    }

    private static ClientPut conditional(ClientPut p, PutCondition condition) {
        return new ClientPut(p.key(), p.value(), p.ttlSeconds(), p.binding(), p.stamp(), condition);
    }

    @Test
    void whatTheOwnerDidNotSignOrAnExpiryOutOfBoundsIsRefused() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        ClientPut good = put(1, expiry, "v1");
        byte[] sig = good.stamp().signature().toByteArray();
        sig[5] ^= 1;
        OwnerStamp s = good.stamp();
        ClientPut tampered = new ClientPut(KEY, good.value(), 0, Bytes.EMPTY,
                new OwnerStamp(s.owner(), s.valueId(), s.seq(), s.expiresAtSeconds(), Bytes.wrap(sig)));
        ClientPut otherData = new ClientPut(KEY, Bytes.utf8("not signed"), 0, Bytes.EMPTY, s);
        Bytes d = Bytes.utf8("v");
        ClientPut impostor = new ClientPut(KEY, d, 0, Bytes.EMPTY, new OwnerStamp(s.owner(), VALUE_ID, 9, expiry,
                stamp(OTHER, SignedOp.PUT, 9, expiry, d).signature()));
        long now = world.scheduler().epochMillis() / 1000;
        long max = NodeConfig.defaults().ttlSecondsMax();
        for (ClientPut p : List.of(tampered, otherData, impostor, put(1, now - 1, "past"),
                put(1, now + max + 60, "too far"))) {
            PutReply r = putAt(world, 2, p);
            assertThat(r.status()).as(Bytes.of(p.value().toByteArray()).toString()).isEqualTo(Status.FORBIDDEN);
        }
        assertThat(held(world)).isEmpty();

        Message withTtl = world.request(2, new ClientPut(KEY, good.value(), 60, Bytes.EMPTY, good.stamp()));
        assertThat(withTtl).extracting("status").isEqualTo(Status.BAD_REQUEST);
        assertThat(putAt(world, 2, good).status()).isEqualTo(Status.OK);
        assertThat(putAt(world, 2, new ClientPut(KEY, Bytes.utf8("anonymous"), 600, Bytes.EMPTY)).status())
                .isEqualTo(Status.OK);
        assertThat(get(world, 9)).as("owned and unowned values side by side").hasSize(2);
    }

    @Test
    void aReplicaThatWasDownNeverBringsTheOldSequenceBack() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        assertThat(putAt(world, 0, put(1, expiry, "old")).status()).isEqualTo(Status.OK);
        int lagging = crashAReplica(world);
        assertThat(putAt(world, 0, put(2, expiry, "new")).status()).isEqualTo(Status.OK);

        world.restart(lagging);
        world.runFor(Duration.ofMinutes(3).toNanos());
        assertThat(held(world)).isNotEmpty().allSatisfy(r -> {
            assertThat(r.seq()).isEqualTo(2);
            assertThat(r.value()).isEqualTo(Bytes.utf8("new"));
        });
        for (int n : world.liveIndexes()) {
            assertThat(get(world, n)).extracting(ValueEntry::value).containsExactly(Bytes.utf8("new"));
        }
    }

    /** Crashes (disk kept) a replica of the key other than node 0, once the copies have settled; its index. */
    private static int crashAReplica(VirtualWorld world) {
        world.runFor(Duration.ofSeconds(5).toNanos());
        int lagging = -1;
        for (int n : world.liveIndexes()) {
            if (n != 0 && world.store(n).scanKey(io.rattan.core.store.Store.Cursor.atKey(KEY), 1).stream()
                    .anyMatch(r -> r.key().equals(KEY))) {
                lagging = n;
                break;
            }
        }
        assertThat(lagging).as("a replica of the key other than the gateway").isNotNegative();
        world.crash(lagging, VirtualWorld.Disk.KEPT);
        world.runFor(Duration.ofSeconds(20).toNanos());
        return lagging;
    }

    private static ClientPut remove(Bytes owner, SignedOp op, long seq, long expirySeconds) {
        return new ClientPut(KEY, Bytes.EMPTY, 0, Bytes.EMPTY, stamp(owner, op, seq, expirySeconds, Bytes.EMPTY));
    }

    /**
     * The owner's remove (an owned put of no data, signed as op 2) takes the value away everywhere; it must outlive
     * the value and carry a higher sequence, and a replica that was down with the value never brings it back.
     */
    @Test
    void theOwnersRemoveTakesTheValueAwayForGood() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        assertThat(putAt(world, 0, put(1, expiry, "v1")).status()).isEqualTo(Status.OK);
        int lagging = crashAReplica(world);

        assertThat(putAt(world, 3, remove(OWNER, SignedOp.PUT, 2, expiry)).status()).as("signed as a put")
                .isEqualTo(Status.FORBIDDEN);
        OwnerStamp impostor = remove(OTHER, SignedOp.REMOVE, 2, expiry).stamp();
        assertThat(putAt(world, 3, new ClientPut(KEY, Bytes.EMPTY, 0, Bytes.EMPTY, new OwnerStamp(
                OwnerSignatures.publicKey(OWNER), VALUE_ID, 2, expiry, impostor.signature()))).status())
                .as("signed by another key").isEqualTo(Status.FORBIDDEN);
        PutReply same = putAt(world, 3, remove(OWNER, SignedOp.REMOVE, 1, expiry));
        assertThat(same.status()).as("the value's own sequence").isEqualTo(Status.CONFLICT);
        assertThat(same.currentSeq()).isEqualTo(1L);
        assertThat(putAt(world, 3, remove(OWNER, SignedOp.REMOVE, 2, expiry - 60)).status())
                .as("a tombstone that would expire first").isEqualTo(Status.CONFLICT);
        PutReply removed = putAt(world, 3, remove(OWNER, SignedOp.REMOVE, 2, expiry));
        assertThat(removed.status()).as(removed.detail()).isEqualTo(Status.OK);
        assertThat(putAt(world, 5, put(1, expiry, "v1")).status()).as("the old value again").isEqualTo(Status.CONFLICT);

        world.restart(lagging);
        world.runFor(Duration.ofMinutes(3).toNanos());
        assertThat(held(world)).hasSizeGreaterThanOrEqualTo(NodeConfig.defaults().replicas())
                .allSatisfy(r -> assertThat(r.tombstone() && r.seq() == 2).as("a tombstone of sequence 2").isTrue());
        for (int n : world.liveIndexes()) {
            assertThat(get(world, n)).as("node %d", n).isEmpty();
        }
        assertThat(putAt(world, 6, conditional(put(3, expiry, "back"), PutCondition.ABSENT)).status())
                .as("a new value over the tombstone, if none is held").isEqualTo(Status.OK);
        assertThat(get(world, 2)).extracting(ValueEntry::value).containsExactly(Bytes.utf8("back"));
    }

    @Test
    void aCopyIsStoredOnlyWithItsOwnersSignatureAndOnlyOverALesserVersion() {
        VirtualScheduler clock = new VirtualScheduler(T0_MILLIS);
        MemoryStore store = new MemoryStore(clock::epochMillis);
        LocalReplica replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
        ReplicaRecord v2 = copy(SLOT, 2, EXPIRY, "v2");
        ReplicaRecord v1 = copy(SLOT, 1, EXPIRY, "v1");
        ReplicaRecord forged = new ReplicaRecord(KEY, SLOT, Bytes.utf8("forged"), EXPIRY * 1000, Bytes.EMPTY,
                Bytes.EMPTY, false, v2.stamp());
        ReplicaRecord elsewhere = new ReplicaRecord(KEY, Bytes.utf8("x").sha256(), v2.value(), EXPIRY * 1000,
                Bytes.EMPTY, Bytes.EMPTY, false, v2.stamp());

        assertThat(replica.acceptReplicas(List.of(forged, elsewhere))).isZero();
        assertThat(store.size()).isZero();
        assertThat(replica.acceptReplicas(List.of(v2))).isOne();
        assertThat(replica.acceptReplicas(List.of(v1))).as("a lesser version").isZero();
        assertThat(replica.acceptReplicas(List.of(v2))).as("the same one again").isOne();
        assertThat(store.read(KEY, SLOT)).get().extracting(StoredRecord::seq).isEqualTo(2L);
        ReplicaRecord removed = new ReplicaRecord(KEY, SLOT, Bytes.EMPTY, EXPIRY * 1000, Bytes.EMPTY, Bytes.EMPTY,
                true, stamp(OWNER, SignedOp.REMOVE, 3, EXPIRY, Bytes.EMPTY));
        assertThat(replica.acceptReplicas(List.of(removed))).isOne();
        assertThat(replica.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.NONE).values()).isEmpty();
        assertThat(replica.acceptReplicas(List.of(v2))).as("under its tombstone").isZero();
    }

    /**
     * A slot's name is public (owner key and value id), so any replica could push an unowned tombstone naming it; it
     * must not keep the owner's value out, on the replicas that hold it or by being repaired onto the others. One with
     * a secret lives in the slot its secret opens (protocol 16), beside the owned one; one without (a migrated store's)
     * is in the owned slot itself, and gives way.
     */
    @Test
    void aForgedTombstoneUnderTheSlotGivesWayToTheOwnersValue() {
        VirtualWorld world = world();
        long expiry = inAnHour(world);
        StoredRecord forged = StoredRecord.tombstone(KEY, SLOT, (expiry + 3600) * 1000, Bytes.utf8("forger"));
        StoredRecord migrated = StoredRecord.tombstone(KEY, SLOT, (expiry + 3600) * 1000, Bytes.EMPTY);
        assertThat(forged.slot()).isNotEqualTo(SLOT);
        assertThat(migrated.slot()).isEqualTo(SLOT);
        for (int n : world.liveIndexes()) {
            world.store(n).write(forged);
            world.store(n).write(migrated);
        }
        PutReply put = putAt(world, 4, put(1, expiry, "mine"));
        assertThat(put.status()).as(put.detail()).isEqualTo(Status.OK);
        world.runFor(Duration.ofMinutes(2).toNanos());
        assertThat(held(world)).hasSizeGreaterThanOrEqualTo(NodeConfig.defaults().replicas());
        GetReply quorum = (GetReply) world.request(7, ClientGet.of(KEY, GetOptions.defaults().withQuorum(3)));
        assertThat(quorum.values()).extracting(ValueEntry::value).containsExactly(Bytes.utf8("mine"));
        assertThat(quorum.values().get(0).stamp().seq()).isEqualTo(1);
        for (int n : world.liveIndexes()) {
            assertThat(get(world, n)).as("node %d", n).extracting(ValueEntry::value)
                    .containsExactly(Bytes.utf8("mine"));
        }
    }

    @Test
    void malformedOwnedCopiesAreDroppedAndNoUnownedTombstoneHoldsTheOwnedSlot() {
        VirtualScheduler clock = new VirtualScheduler(T0_MILLIS);
        MemoryStore store = new MemoryStore(clock::epochMillis);
        LocalReplica replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
        ReplicaRecord v1 = copy(SLOT, 1, EXPIRY, "v1");
        List<ReplicaRecord> malformed = List.of(
                new ReplicaRecord(KEY, SLOT, v1.value(), v1.expiresAtMillis(), SLOT, Bytes.EMPTY, false, v1.stamp()),
                new ReplicaRecord(KEY, SLOT, v1.value(), v1.expiresAtMillis(), Bytes.EMPTY, Bytes.utf8("s"), false,
                        v1.stamp()),
                new ReplicaRecord(KEY, Bytes.of(Bytes.utf8("short").sha256().toByteArray(), 0, 20), v1.value(), v1.expiresAtMillis(),
                        Bytes.EMPTY, Bytes.EMPTY, false, v1.stamp()),
                new ReplicaRecord(KEY, SLOT, v1.value(), v1.expiresAtMillis(), Bytes.EMPTY, Bytes.EMPTY, true,
                        v1.stamp()));
        assertThat(replica.acceptReplicas(malformed)).isZero();
        assertThat(store.size()).isZero();

        long max = NodeConfig.defaults().ttlSecondsMax();
        long now = T0_MILLIS / 1000;
        assertThat(replica.acceptReplicas(List.of(copy(SLOT, 1, now + max + 3, "far")))).as("beyond ttl + 2 S")
                .isZero();
        assertThat(replica.acceptReplicas(List.of(copy(SLOT, 1, now + max + 1, "lagging clock")))).as("within")
                .isOne();
        store.purgeExpired(Integer.MAX_VALUE);

        VirtualScheduler other = new VirtualScheduler(T0_MILLIS);
        MemoryStore fresh = new MemoryStore(other::epochMillis);
        LocalReplica replica2 = new LocalReplica(NodeConfig.defaults(), fresh, other, "test");
        // The one unowned tombstone that can be in an owned slot, a migrated one without a secret, gives way.
        fresh.write(StoredRecord.tombstone(KEY, SLOT, (EXPIRY + 60) * 1000, Bytes.EMPTY));
        assertThat(replica2.acceptReplicas(List.of(v1))).as("the owner's copy over a migrated tombstone").isOne();
        assertThat(fresh.read(KEY, SLOT)).get().extracting(StoredRecord::isOwned).isEqualTo(true);
        assertThat(fresh.size()).isOne();
        // A forged one, naming the owned slot as its value hash, lives in the slot its secret opens: beside the owned
        // record, which it never meets.
        ReplicaRecord forged = new ReplicaRecord(KEY, SLOT, Bytes.EMPTY, (EXPIRY + 60) * 1000, Bytes.EMPTY,
                Bytes.utf8("forger"), true);
        assertThat(forged.slot()).isNotEqualTo(SLOT);
        assertThat(replica2.acceptReplicas(List.of(forged))).as("kept where it meets nothing").isOne();
        ReplicaRecord migrated = new ReplicaRecord(KEY, SLOT, Bytes.EMPTY, (EXPIRY + 60) * 1000, Bytes.EMPTY,
                Bytes.EMPTY, true);
        assertThat(replica2.acceptReplicas(List.of(migrated))).as("and no peer sends one without a secret").isZero();
        assertThat(fresh.read(KEY, SLOT)).get().extracting(StoredRecord::seq).isEqualTo(1L);
        assertThat(fresh.size()).isEqualTo(2);
        assertThat(replica2.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.NONE).values())
                .extracting(ValueEntry::value).containsExactly(v1.value());
    }

    private static ReplicaRecord copy(Bytes slot, long seq, long expiry, String data) {
        Bytes d = Bytes.utf8(data);
        return new ReplicaRecord(KEY, slot, d, expiry * 1000, Bytes.EMPTY, Bytes.EMPTY, false,
                stamp(OWNER, SignedOp.PUT, seq, expiry, d));
    }
}
