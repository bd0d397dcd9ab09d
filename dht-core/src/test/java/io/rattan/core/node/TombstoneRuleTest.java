package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tombstone rule as a replica applies it: through {@link LocalReplica} over a real {@link MemoryStore}, no node,
 * no network. A value holds its binding, SHA-256(secret ‖ key ‖ value hash); a tombstone holds the remove's secret,
 * and removes a value only when the secret opens the value's binding. A store names a record by its key and slot
 * ({@link StoredRecord#slot}): a bound value's slot commits to its binding, and a tombstone lives in the slot of the
 * value its secret opens, so the same bytes put with two secrets are two records, each removed by its own secret.
 */
class TombstoneRuleTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final Id K1 = Id.fromHex("1000000000000000000000000000000000000000");
    private static final Id K2 = Id.fromHex("2000000000000000000000000000000000000000");
    private static final Bytes SECRET_A = Bytes.utf8("secret a");
    private static final Bytes SECRET_B = Bytes.utf8("secret b");

    private ManualTestClock clock;
    private MemoryStore store;
    private LocalReplica replica;

    @BeforeEach
    void createReplica() {
        clock = new ManualTestClock(T0);
        store = new MemoryStore(clock::epochMillis);
        replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
    }

    /** A value put with {@code secret} (null: none), holding its binding. */
    private static StoredRecord value(Id key, String value, long expiresAtMillis, Bytes secret) {
        Bytes v = Bytes.utf8(value);
        return StoredRecord.value(key, v, expiresAtMillis,
                secret == null ? Bytes.EMPTY : SecretBinding.of(secret, key, v.sha256()));
    }

    private static StoredRecord tombstoneOf(StoredRecord value, long expiresAtMillis, Bytes secret) {
        return StoredRecord.tombstone(value.key(), value.valueHash(), expiresAtMillis, secret);
    }

    /** The values a get of {@code key} is served from this replica: one page, every live value. */
    private List<ValueEntry> served(LocalReplica from, Id key) {
        return from.readPage(key, 0, Bytes.EMPTY, 0, ValueFilter.NONE).values();
    }

    private List<Bytes> servedBytes(Id key) {
        return served(replica, key).stream().map(ValueEntry::value).toList();
    }

    // ---- the binding itself

    @Test
    void theBindingIsSha256OfSecretKeyAndValueHash() {
        Id key = Id.fromHex("0123456789abcdef0123456789abcdef01234567");
        Bytes valueHash = Bytes.utf8("red").sha256();

        // Pinned: python3 -c "import hashlib; k=bytes.fromhex('0123…4567'); v=hashlib.sha256(b'red').digest();
        //                      print(hashlib.sha256(b's3cret'+k+v).hexdigest())"
        assertThat(SecretBinding.of(Bytes.utf8("s3cret"), key, valueHash)).isEqualTo(Bytes.fromHex(
                "2f240a7cc5be85e8681469082132eafc0cbfd060ec9431e2158ead6468921460"));
        assertThat(SecretBinding.ofValue(null, key, Bytes.utf8("red"))).isEqualTo(Bytes.EMPTY);
    }

    @Test
    void aClientBindsItsValueToAProofOfItsSecretAndRemovesWithTheProof() {
        Id key = Id.fromHex("0123456789abcdef0123456789abcdef01234567");
        Bytes valueHash = Bytes.utf8("red").sha256();
        Bytes secret = Bytes.utf8("s3cret");

        // Pinned: python3 -c "import hashlib; k=bytes.fromhex('0123…4567'); v=hashlib.sha256(b'red').digest();
        //   p=hashlib.sha256(b'rattan remove proof 1\n'+b's3cret'+k+v).digest(); print(p.hex(),
        //   hashlib.sha256(p+k+v).hexdigest())"
        Bytes proof = SecretBinding.proof(secret, key, valueHash);
        assertThat(proof).isEqualTo(Bytes.fromHex("6df03110fab900152fcf4fe62e0f033ae3dd2f7229c9c071587dee81fabefdcc"));
        Bytes binding = SecretBinding.bindingFor(secret, key, valueHash);
        assertThat(binding).isEqualTo(Bytes.fromHex(
                "ddb95aaaae2cae779bb0f120be4ee6075740059936b8eab39aa6eb5c2d259f69"));
        assertThat(SecretBinding.ofValue("s3cret".getBytes(java.nio.charset.StandardCharsets.UTF_8), key,
                Bytes.utf8("red"))).isEqualTo(binding);

        assertThat(SecretBinding.opens(proof, key, valueHash, binding)).as("the proof opens it").isTrue();
        assertThat(SecretBinding.opens(secret, key, valueHash, binding)).as("the secret itself does not").isFalse();
        assertThat(proof).as("no binding made with the secret itself is a proof")
                .isNotEqualTo(SecretBinding.of(secret, key, valueHash));
        assertThat(SecretBinding.proof(secret, key, Bytes.utf8("blue").sha256()))
                .as("one secret's proofs for two values are unrelated").isNotEqualTo(proof);
    }

    @Test
    void aBindingIsOpenedOnlyByItsSecretForItsKeyAndValue() {
        Bytes valueHash = Bytes.utf8("hello").sha256();
        Bytes binding = SecretBinding.of(SECRET_A, K1, valueHash);

        assertThat(SecretBinding.opens(SECRET_A, K1, valueHash, binding)).isTrue();
        assertThat(SecretBinding.opens(SECRET_B, K1, valueHash, binding)).as("another secret").isFalse();
        assertThat(SecretBinding.opens(SECRET_A, K2, valueHash, binding)).as("another key").isFalse();
        assertThat(SecretBinding.opens(SECRET_A, K1, Bytes.utf8("other").sha256(), binding)).as("another value")
                .isFalse();
        assertThat(SecretBinding.opens(binding, K1, valueHash, binding)).as("the binding itself").isFalse();
        assertThat(SecretBinding.opens(SECRET_A.sha256(), K1, valueHash, binding))
                .as("SHA-256 of the secret, what version 5 carried").isFalse();
        assertThat(SecretBinding.opens(Bytes.EMPTY, K1, valueHash, binding)).as("no secret").isFalse();
        assertThat(SecretBinding.opens(SECRET_A, K1, valueHash, Bytes.EMPTY)).as("no binding").isFalse();
        assertThat(SecretBinding.of(SECRET_A, K1, valueHash)).as("a value under another key binds differently")
                .isNotEqualTo(SecretBinding.of(SECRET_A, K2, valueHash));
    }

    // ---- the rule

    @Test
    void valueMeetingItsTombstoneWithTheSameSecretIsDropped() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        StoredRecord t = tombstoneOf(v, T0 + 1_000, SECRET_A);
        assertThat(t.slot()).as("a tombstone lives in the slot of the value its secret opens").isEqualTo(v.slot());
        assertThat(replica.store(t)).as("kept with its secret, though nothing here can check it yet").isTrue();

        assertThat(replica.store(v)).isFalse();
        assertThat(replica.store(value(K1, "hello", T0 + 50_000, SECRET_A))).isFalse();

        assertThat(store.read(K1, v.slot())).as("a copy that outlives the tombstone stretches it")
                .contains(tombstoneOf(v, T0 + 50_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void valueWithADifferentSecretIsNotDroppedByATombstone() {
        StoredRecord t = tombstoneOf(value(K1, "hello", T0, SECRET_A), T0 + 1_000, SECRET_A);
        replica.store(t);

        StoredRecord other = value(K1, "hello", T0 + 500, SECRET_B);
        assertThat(other.slot()).as("another binding, another slot").isNotEqualTo(t.slot());
        assertThat(replica.store(other)).isTrue();
        assertThat(store.read(K1, other.slot())).contains(other);
        assertThat(store.read(K1, t.slot())).as("the tombstone stays, in its own slot").contains(t);
        assertThat(servedBytes(K1)).containsExactly(other.value());

        StoredRecord unremovable = value(K2, "hello", T0 + 500, null);
        StoredRecord t2 = tombstoneOf(unremovable, T0 + 1_000, SECRET_A);
        replica.store(t2);
        assertThat(replica.store(unremovable)).isTrue();
        assertThat(store.read(K2, unremovable.slot())).contains(unremovable);
        assertThat(store.read(K2, t2.slot())).contains(t2);
        assertThat(servedBytes(K2)).containsExactly(unremovable.value());
        assertThat(store.size()).isEqualTo(4);
    }

    @Test
    void aTombstoneNeverRemovesAValueOfAnotherSecretNorOneWithoutAny() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        replica.store(v);
        StoredRecord ofB = tombstoneOf(v, T0 + 2_000, SECRET_B);
        assertThat(replica.store(ofB)).as("kept in the slot B's secret opens, where no value is").isTrue();
        assertThat(replica.store(tombstoneOf(v, T0 + 2_000, Bytes.EMPTY))).as("one without a secret").isFalse();
        assertThat(store.read(K1, v.slot())).contains(v);
        assertThat(store.read(K1, ofB.slot())).contains(ofB);
        assertThat(servedBytes(K1)).containsExactly(v.value());

        StoredRecord unremovable = value(K2, "hello", T0 + 1_000, null);
        replica.store(unremovable);
        StoredRecord ofA = tombstoneOf(unremovable, T0 + 2_000, SECRET_A);
        assertThat(ofA.slot()).isNotEqualTo(unremovable.slot());
        assertThat(replica.store(ofA)).as("kept apart from the unbound value").isTrue();
        assertThat(store.read(K2, unremovable.slot())).contains(unremovable);
        assertThat(servedBytes(K2)).containsExactly(unremovable.value());
        assertThat(store.size()).isEqualTo(4);

        StoredRecord t = tombstoneOf(v, T0 + 100, SECRET_A);
        assertThat(replica.store(t)).as("even one that expires sooner than the value it removes").isTrue();
        assertThat(store.read(K1, v.slot())).as("stretched to outlive the copy it replaced by the margin")
                .contains(tombstoneOf(v, v.expiresAtMillis() + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(servedBytes(K1)).isEmpty();
    }

    /**
     * The forgery of issue 18: every node on a put's path sees the binding; a tombstone made from it opens nothing. It
     * lives in the slot of a value its secret would open, where no value is, and meets nothing there.
     */
    @Test
    void aTombstoneMadeFromWhatAPathNodeSawRemovesNothing() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), v.binding(), 60)).as("a remove with the binding")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K1, v.valueHash(), SECRET_A.sha256(), 60)).as("with SHA-256 of the secret")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(store.size()).isOne();
        StoredRecord ofHash = tombstoneOf(v, T0 + 20_000, SECRET_A.sha256());
        assertThat(replica.store(ofHash)).as("SHA-256 of the secret, kept where it meets nothing").isTrue();
        int accepted = replica.acceptReplicas(List.of(
                new ReplicaRecord(K1, v.valueHash(), Bytes.EMPTY, T0 + 20_000, Bytes.EMPTY, v.binding(), true),
                new ReplicaRecord(K1, v.valueHash(), Bytes.EMPTY, T0 + 20_000, v.binding(), Bytes.EMPTY, true)));
        assertThat(accepted).as("the binding as a secret kept apart; a tombstone with a binding refused").isOne();
        StoredRecord ofBinding = tombstoneOf(v, T0 + 20_000, v.binding());
        assertThat(store.read(K1, ofBinding.slot())).contains(ofBinding);
        assertThat(List.of(ofHash.slot(), ofBinding.slot())).doesNotContain(v.slot());
        assertThat(store.read(K1, v.slot())).as("the value survives").contains(v);
        assertThat(servedBytes(K1)).containsExactly(v.value());
        assertThat(store.size()).isEqualTo(3);

        assertThat(replica.acceptReplicas(List.of(replica.toWire(tombstoneOf(v, T0 + 20_000, SECRET_A)))))
                .as("the real tombstone, as repair carries it").isEqualTo(1);
        assertThat(store.read(K1, v.slot())).contains(tombstoneOf(v, T0 + 20_000, SECRET_A));
        assertThat(servedBytes(K1)).isEmpty();
    }

    @Test
    void aPeerCannotPushAValueWithASecretNorATombstoneWithABinding() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        ReplicaRecord valueWithSecret = new ReplicaRecord(K1, v.valueHash(), v.value(), T0 + 10_000, v.binding(),
                SECRET_A, false);
        ReplicaRecord tombstoneWithBinding = new ReplicaRecord(K1, v.valueHash(), Bytes.EMPTY, T0 + 10_000,
                v.binding(), SECRET_A, true);

        assertThat(replica.acceptReplicas(List.of(valueWithSecret, tombstoneWithBinding))).isZero();
        assertThat(store.size()).isZero();
    }

    @Test
    void laterExpiryWinsBetweenTwoCopiesOfOneBindingAndAnotherBindingIsAnotherRecord() {
        StoredRecord v = value(K1, "hello", T0 + 2_000, SECRET_A);
        replica.store(v);

        assertThat(replica.store(value(K1, "hello", T0 + 1_000, SECRET_A))).isTrue();
        assertThat(store.read(K1, v.slot())).contains(v);
        assertThat(TombstoneRule.merge(v, value(K1, "hello", T0 + 2_000, SECRET_A))).as("a tie keeps the held record")
                .isEqualTo(TombstoneRule.Outcome.UNCHANGED);
        StoredRecord later = value(K1, "hello", T0 + 3_000, SECRET_A);
        replica.store(later);
        assertThat(store.read(K1, v.slot())).contains(later);

        StoredRecord ofB = value(K1, "hello", T0 + 1_000, SECRET_B);
        assertThat(replica.store(ofB)).as("the same bytes put with another secret").isTrue();
        assertThat(store.read(K1, ofB.slot())).contains(ofB);
        assertThat(store.read(K1, v.slot())).as("A's copy keeps its binding and its expiry").contains(later);
        assertThat(store.size()).isEqualTo(2);
        assertThat(served(replica, K1)).as("served once, with the longest time left")
                .containsExactly(new ValueEntry(v.value(), 3_000));

        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 60)).as("B removes its own copy").isEqualTo(Status.OK);
        assertThat(store.read(K1, v.slot())).as("and only that").contains(later);
        assertThat(servedBytes(K1)).containsExactly(v.value());
    }

    @Test
    void laterExpiryWinsBetweenTwoTombstonesOfOneSecret() {
        StoredRecord v = value(K1, "hello", T0, SECRET_A);
        StoredRecord t = tombstoneOf(v, T0 + 2_000, SECRET_A);
        replica.store(t);

        replica.store(tombstoneOf(v, T0 + 1_000, SECRET_A));
        assertThat(store.read(K1, t.slot())).contains(t);

        StoredRecord later = tombstoneOf(v, T0 + 3_000, SECRET_A);
        replica.store(later);
        assertThat(store.read(K1, t.slot())).contains(later);

        StoredRecord ofB = tombstoneOf(v, T0 + 9_000, SECRET_B);
        assertThat(replica.store(ofB)).as("another secret's, kept in the slot its secret opens").isTrue();
        assertThat(store.read(K1, t.slot())).contains(later);
        assertThat(store.read(K1, ofB.slot())).contains(ofB);
        assertThat(TombstoneRule.merge(later, ofB)).as("were two secrets' tombstones ever to meet, the held one stays")
                .isEqualTo(TombstoneRule.Outcome.REFUSED);

        clock.setEpochMillis(T0 + 2_500);
        assertThat(store.purgeExpired(100)).isZero();
        assertThat(store.size()).isEqualTo(2);
    }

    @Test
    void aRemoveWritesATombstoneOnlyWhereItOpensTheBinding() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 60)).as("the bytes held under another binding")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K2, v.valueHash(), SECRET_A, 60)).as("not held here").isEqualTo(Status.NOT_FOUND);
        assertThat(store.size()).as("nothing is written where nothing was held").isEqualTo(1);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).isEqualTo(Status.OK);
        assertThat(store.read(K1, v.slot())).as("the tombstone outlives the value and keeps the secret")
                .contains(tombstoneOf(v, T0 + 10_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).as("removing twice").isEqualTo(Status.OK);
        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 1)).isEqualTo(Status.NOT_FOUND);
        assertThat(replica.store(v)).as("the put does not come back").isFalse();
        assertThat(replica.toWire(store.read(K1, v.slot()).orElseThrow()).secret())
                .as("repair carries the secret, so that the receiver can check it").isEqualTo(SECRET_A);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aValuePutWithoutASecretCannotBeRemoved() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, null);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 60)).isEqualTo(Status.FORBIDDEN);
        assertThat(store.read(K1, v.slot())).contains(v);
        assertThat(store.size()).isEqualTo(1);
    }

    /**
     * A tombstone of a store migrated from on-disk format 1 has no secret: it keeps unbound values out (the migrated
     * values lost their bindings), a value with a binding is stored beside it in its own slot, and no peer can send
     * one.
     */
    @Test
    void aMigratedTombstoneWithoutASecretBlocksOnlyUnboundValues() {
        StoredRecord old = value(K1, "hello", T0 + 10_000, null);
        StoredRecord migrated = tombstoneOf(old, T0 + 20_000, Bytes.EMPTY);
        store.write(migrated);

        assertThat(replica.store(old)).isFalse();
        assertThat(replica.remove(K1, old.valueHash(), SECRET_A, 60)).isEqualTo(Status.NOT_FOUND);
        StoredRecord bound = value(K1, "hello", T0 + 10_000, SECRET_A);
        assertThat(replica.store(bound)).isTrue();
        assertThat(store.read(K1, bound.slot())).contains(bound);
        assertThat(store.read(K1, old.slot())).as("the migrated tombstone stays in the unbound slot")
                .contains(migrated);
        assertThat(servedBytes(K1)).containsExactly(bound.value());
    }

    // ---- one record per binding (protocol 16)

    @Test
    void twoPutsOfTheSameBytesWithTwoSecretsAreTwoRecordsEachRemovedByItsOwnSecret() {
        StoredRecord ofA = value(K1, "shared", T0 + 10_000, SECRET_A);
        StoredRecord ofB = value(K1, "shared", T0 + 20_000, SECRET_B);
        assertThat(replica.store(ofA)).isTrue();
        assertThat(replica.store(ofB)).isTrue();
        assertThat(store.size()).as("two records").isEqualTo(2);
        assertThat(servedBytes(K1)).as("served once").containsExactly(ofA.value());

        assertThat(replica.remove(K1, ofA.valueHash(), SECRET_A, 60)).isEqualTo(Status.OK);
        assertThat(store.read(K1, ofA.slot())).as("A's slot only")
                .contains(tombstoneOf(ofA, T0 + 60_000, SECRET_A));
        assertThat(store.read(K1, ofB.slot())).as("B's copy is live still").contains(ofB);
        assertThat(served(replica, K1)).as("once, B's copy").containsExactly(new ValueEntry(ofB.value(), 20_000));

        assertThat(replica.remove(K1, ofB.valueHash(), SECRET_B, 60)).isEqualTo(Status.OK);
        assertThat(store.read(K1, ofB.slot())).contains(tombstoneOf(ofB, T0 + 60_000, SECRET_B));
        assertThat(served(replica, K1)).isEmpty();
        assertThat(store.size()).as("two tombstones").isEqualTo(2);
    }

    private static StoredRecord liarsCopy() {
        return value(K1, "contested", T0 + 30_000, SECRET_B);
    }

    private static StoredRecord ownersCopy() {
        return value(K1, "contested", T0 + 10_000, SECRET_A);
    }

    /** The liar's copy of the owner's bytes arrives first, then the owner's; then the owner removes its value. */
    private static Status raceThenOwnersRemove(LocalReplica at) {
        assertThat(at.store(liarsCopy())).isTrue();
        assertThat(at.store(ownersCopy())).isTrue();
        return at.remove(K1, ownersCopy().valueHash(), SECRET_A, 60);
    }

    /** The binding race of issue 39: who stores the bytes first does not own their remove. */
    @Test
    void bytesStoredFirstUnderAnotherBindingDoNotTakeOverTheOwnersRemove() {
        assertThat(raceThenOwnersRemove(replica)).isEqualTo(Status.OK);
        assertThat(store.read(K1, ownersCopy().slot())).contains(tombstoneOf(ownersCopy(), T0 + 60_000, SECRET_A));
        assertThat(store.read(K1, liarsCopy().slot())).as("the liar's own put stays").contains(liarsCopy());
        assertThat(served(replica, K1)).containsExactly(new ValueEntry(liarsCopy().value(), 30_000));

        MemoryStore firstComeStore = new MemoryStore(clock::epochMillis);
        LocalReplica firstCome = new LocalReplica(NodeConfig.defaults(), firstComeStore, clock, "first come",
                PlantedBugs.of(PlantedBugs.Bug.BINDINGS_FIRST_COME));
        assertThat(raceThenOwnersRemove(firstCome)).as("planted: the binding stored first keeps the remove")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(firstComeStore.read(K1, ownersCopy().slot())).as("the owner's copy taken as held").isEmpty();
        assertThat(firstComeStore.size()).isOne();
    }

    @Test
    void aTombstoneThatArrivesFirstKeepsOutOnlyTheCopyItsSecretOpens() {
        StoredRecord owners = value(K1, "early", T0 + 10_000, SECRET_A);
        StoredRecord t = tombstoneOf(owners, T0 + 5_000, SECRET_A);
        assertThat(replica.store(t)).isTrue();

        StoredRecord others = value(K1, "early", T0 + 8_000, SECRET_B);
        assertThat(replica.store(others)).as("another binding's copy meets nothing in its slot").isTrue();
        assertThat(store.read(K1, others.slot())).contains(others);
        assertThat(servedBytes(K1)).containsExactly(others.value());

        assertThat(replica.store(owners)).as("the owner's copy meets its remove").isFalse();
        assertThat(store.read(K1, owners.slot())).as("which is stretched to outlive it")
                .contains(tombstoneOf(owners, T0 + 10_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(served(replica, K1)).containsExactly(new ValueEntry(others.value(), 8_000));
        assertThat(store.size()).isEqualTo(2);
    }

    @Test
    void aRemoveWhoseSecretOpensNoCopyIsForbiddenWhereTheBytesAreHeldAndNotFoundWhereNot() {
        StoredRecord ofB = value(K1, "held", T0 + 10_000, SECRET_B);
        StoredRecord unbound = value(K2, "held", T0 + 10_000, null);
        StoredRecord elsewhere = value(K1, "other bytes", T0 + 10_000, SECRET_A);
        for (StoredRecord r : List.of(ofB, unbound, elsewhere)) {
            assertThat(replica.store(r)).isTrue();
        }

        assertThat(replica.remove(K1, ofB.valueHash(), SECRET_A, 60)).as("held under another binding")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K2, unbound.valueHash(), SECRET_A, 60)).as("held without a binding")
                .isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K1, Bytes.utf8("never put").sha256(), SECRET_A, 60)).as("not held at all")
                .isEqualTo(Status.NOT_FOUND);
        assertThat(replica.remove(K2, elsewhere.valueHash(), SECRET_A, 60)).as("held under another key only")
                .isEqualTo(Status.NOT_FOUND);
        assertThat(store.size()).as("nothing written").isEqualTo(3);

        assertThat(replica.remove(K1, ofB.valueHash(), SECRET_B, 60)).isEqualTo(Status.OK);
        assertThat(replica.remove(K1, ofB.valueHash(), SECRET_A, 60)).as("held only as another secret's tombstone")
                .isEqualTo(Status.NOT_FOUND);
        assertThat(store.size()).isEqualTo(3);
    }
}
