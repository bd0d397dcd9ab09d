package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tombstone rule as a replica applies it: through {@link LocalReplica} over a real {@link MemoryStore}, no node,
 * no network. A value holds its binding, SHA-256(secret ‖ key ‖ value hash); a tombstone holds the remove's secret,
 * and removes a value only when the secret opens the value's binding.
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

    // ---- the binding itself

    @Test
    void theBindingIsSha256OfSecretKeyAndValueHash() {
        Id key = Id.fromHex("0123456789abcdef0123456789abcdef01234567");
        Bytes valueHash = Bytes.utf8("red").sha256();

        // Pinned: python3 -c "import hashlib; k=bytes.fromhex('0123…4567'); v=hashlib.sha256(b'red').digest();
        //                      print(hashlib.sha256(b's3cret'+k+v).hexdigest())"
        assertThat(SecretBinding.of(Bytes.utf8("s3cret"), key, valueHash)).isEqualTo(Bytes.fromHex(
                "2f240a7cc5be85e8681469082132eafc0cbfd060ec9431e2158ead6468921460"));
        assertThat(SecretBinding.ofValue("s3cret".getBytes(java.nio.charset.StandardCharsets.UTF_8), key,
                Bytes.utf8("red"))).isEqualTo(SecretBinding.of(Bytes.utf8("s3cret"), key, valueHash));
        assertThat(SecretBinding.ofValue(null, key, Bytes.utf8("red"))).isEqualTo(Bytes.EMPTY);
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
        assertThat(replica.store(t)).as("kept with its secret, though nothing here can check it yet").isTrue();

        assertThat(replica.store(v)).isFalse();
        assertThat(replica.store(value(K1, "hello", T0 + 50_000, SECRET_A))).isFalse();

        assertThat(store.read(K1, v.valueHash())).as("a copy that outlives the tombstone stretches it")
                .contains(tombstoneOf(v, T0 + 50_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void valueWithADifferentSecretIsNotDroppedByATombstone() {
        StoredRecord t = tombstoneOf(value(K1, "hello", T0, SECRET_A), T0 + 1_000, SECRET_A);
        replica.store(t);

        StoredRecord other = value(K1, "hello", T0 + 500, SECRET_B);
        assertThat(replica.store(other)).isTrue();
        assertThat(store.read(K1, other.valueHash())).contains(other);

        StoredRecord unremovable = value(K2, "hello", T0 + 500, null);
        replica.store(tombstoneOf(unremovable, T0 + 1_000, SECRET_A));
        assertThat(replica.store(unremovable)).isTrue();
        assertThat(store.read(K2, unremovable.valueHash())).contains(unremovable);
    }

    @Test
    void aTombstoneNeverRemovesAValueOfAnotherSecretNorOneWithoutAny() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        replica.store(v);
        assertThat(replica.store(tombstoneOf(v, T0 + 2_000, SECRET_B))).isFalse();
        assertThat(replica.store(tombstoneOf(v, T0 + 2_000, Bytes.EMPTY))).isFalse();
        assertThat(store.read(K1, v.valueHash())).contains(v);

        StoredRecord unremovable = value(K2, "hello", T0 + 1_000, null);
        replica.store(unremovable);
        assertThat(replica.store(tombstoneOf(unremovable, T0 + 2_000, SECRET_A))).isFalse();
        assertThat(store.read(K2, unremovable.valueHash())).contains(unremovable);

        StoredRecord t = tombstoneOf(v, T0 + 100, SECRET_A);
        assertThat(replica.store(t)).as("even one that expires sooner than the value it removes").isTrue();
        assertThat(store.read(K1, v.valueHash())).as("stretched to outlive the copy it replaced by the margin")
                .contains(tombstoneOf(v, v.expiresAtMillis() + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
    }

    /** The forgery of issue 18: every node on a put's path sees the binding; a tombstone made from it opens nothing. */
    @Test
    void aTombstoneMadeFromWhatAPathNodeSawRemovesNothing() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        replica.store(v);

        assertThat(replica.store(tombstoneOf(v, T0 + 20_000, v.binding()))).as("the binding as a secret").isFalse();
        assertThat(replica.store(tombstoneOf(v, T0 + 20_000, SECRET_A.sha256()))).as("SHA-256 of the secret")
                .isFalse();
        assertThat(replica.remove(K1, v.valueHash(), v.binding(), 60)).isEqualTo(Status.FORBIDDEN);
        int accepted = replica.acceptReplicas(List.of(
                new ReplicaRecord(K1, v.valueHash(), Bytes.EMPTY, T0 + 20_000, Bytes.EMPTY, v.binding(), true),
                new ReplicaRecord(K1, v.valueHash(), Bytes.EMPTY, T0 + 20_000, v.binding(), Bytes.EMPTY, true)));
        assertThat(accepted).isZero();
        assertThat(store.read(K1, v.valueHash())).as("the value survives").contains(v);

        assertThat(replica.acceptReplicas(List.of(replica.toWire(tombstoneOf(v, T0 + 20_000, SECRET_A)))))
                .as("the real tombstone, as repair carries it").isEqualTo(1);
        assertThat(store.read(K1, v.valueHash())).contains(tombstoneOf(v, T0 + 20_000, SECRET_A));
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
    void laterExpiryWinsBetweenTwoValuesAndTheFirstBindingStays() {
        StoredRecord v = value(K1, "hello", T0 + 2_000, SECRET_A);
        replica.store(v);

        assertThat(replica.store(value(K1, "hello", T0 + 1_000, SECRET_B))).isTrue();
        assertThat(store.read(K1, v.valueHash())).contains(v);

        replica.store(value(K1, "hello", T0 + 2_000, SECRET_B));
        assertThat(store.read(K1, v.valueHash())).as("a tie keeps the held record").contains(v);

        replica.store(value(K1, "hello", T0 + 3_000, SECRET_B));
        assertThat(store.read(K1, v.valueHash())).as("re-putting with another secret cannot take over the remove")
                .contains(value(K1, "hello", T0 + 3_000, SECRET_A));
        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 60)).isEqualTo(Status.FORBIDDEN);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void laterExpiryWinsBetweenTwoTombstonesOfOneSecret() {
        StoredRecord v = value(K1, "hello", T0, SECRET_A);
        StoredRecord t = tombstoneOf(v, T0 + 2_000, SECRET_A);
        replica.store(t);

        replica.store(tombstoneOf(v, T0 + 1_000, SECRET_A));
        assertThat(store.read(K1, v.valueHash())).contains(t);

        StoredRecord later = tombstoneOf(v, T0 + 3_000, SECRET_A);
        replica.store(later);
        assertThat(store.read(K1, v.valueHash())).contains(later);

        assertThat(replica.store(tombstoneOf(v, T0 + 9_000, SECRET_B))).as("another secret's").isFalse();
        assertThat(store.read(K1, v.valueHash())).contains(later);

        clock.setEpochMillis(T0 + 2_500);
        assertThat(store.purgeExpired(100)).isZero();
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aRemoveWritesATombstoneOnlyWhereItOpensTheBinding() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 60)).isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K2, v.valueHash(), SECRET_A, 60)).as("not held here").isEqualTo(Status.NOT_FOUND);
        assertThat(store.size()).as("nothing is written where nothing was held").isEqualTo(1);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).isEqualTo(Status.OK);
        assertThat(store.read(K1, v.valueHash())).as("the tombstone outlives the value and keeps the secret")
                .contains(tombstoneOf(v, T0 + 10_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, SECRET_A));
        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).as("removing twice").isEqualTo(Status.OK);
        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 1)).isEqualTo(Status.NOT_FOUND);
        assertThat(replica.store(v)).as("the put does not come back").isFalse();
        assertThat(replica.toWire(store.read(K1, v.valueHash()).orElseThrow()).secret())
                .as("repair carries the secret, so that the receiver can check it").isEqualTo(SECRET_A);
    }

    @Test
    void aValuePutWithoutASecretCannotBeRemoved() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, null);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 60)).isEqualTo(Status.FORBIDDEN);
        assertThat(store.read(K1, v.valueHash())).contains(v);
    }

    /**
     * A tombstone of a store migrated from on-disk format 1 has no secret: it keeps unbound values out (the migrated
     * values lost their bindings) and a value with a binding replaces it; no peer can send one.
     */
    @Test
    void aMigratedTombstoneWithoutASecretBlocksOnlyUnboundValues() {
        StoredRecord old = value(K1, "hello", T0 + 10_000, null);
        store.write(tombstoneOf(old, T0 + 20_000, Bytes.EMPTY));

        assertThat(replica.store(old)).isFalse();
        assertThat(replica.remove(K1, old.valueHash(), SECRET_A, 60)).isEqualTo(Status.NOT_FOUND);
        StoredRecord bound = value(K1, "hello", T0 + 10_000, SECRET_A);
        assertThat(replica.store(bound)).isTrue();
        assertThat(store.read(K1, old.valueHash())).contains(bound);
    }
}
