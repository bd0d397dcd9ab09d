package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Status;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tombstone rule as a replica applies it: through {@link LocalReplica} over a real {@link MemoryStore}, no node,
 * no network. These cases were the store contract's while the rule lived in the stores; the outcomes are the ones
 * the node produced then.
 */
class TombstoneRuleTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final Id K1 = Id.fromHex("1000000000000000000000000000000000000000");
    private static final Id K2 = Id.fromHex("2000000000000000000000000000000000000000");
    private static final Bytes SECRET_A = Bytes.utf8("secret a");
    private static final Bytes SECRET_B = Bytes.utf8("secret b");
    private static final Bytes HASH_A = SECRET_A.sha256();
    private static final Bytes HASH_B = SECRET_B.sha256();

    private ManualTestClock clock;
    private MemoryStore store;
    private LocalReplica replica;

    @BeforeEach
    void createReplica() {
        clock = new ManualTestClock(T0);
        store = new MemoryStore(clock::epochMillis);
        replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
    }

    private static StoredRecord value(Id key, String value, long expiresAtMillis, Bytes secretHash) {
        return StoredRecord.value(key, Bytes.utf8(value), expiresAtMillis, secretHash);
    }

    private static StoredRecord tombstoneOf(StoredRecord value, long expiresAtMillis, Bytes secretHash) {
        return StoredRecord.tombstone(value.key(), value.valueHash(), expiresAtMillis, secretHash);
    }

    @Test
    void valueMeetingItsTombstoneWithTheSameSecretIsDropped() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, HASH_A);
        StoredRecord t = tombstoneOf(v, T0 + 1_000, HASH_A);
        assertThat(replica.store(t)).isTrue();

        assertThat(replica.store(v)).isFalse();
        assertThat(replica.store(value(K1, "hello", T0 + 50_000, HASH_A))).isFalse();

        assertThat(store.read(K1, v.valueHash())).as("a copy that outlives the tombstone stretches it")
                .contains(tombstoneOf(v, T0 + 50_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, HASH_A));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void valueWithADifferentSecretIsNotDroppedByATombstone() {
        StoredRecord t = tombstoneOf(value(K1, "hello", T0, HASH_A), T0 + 1_000, HASH_A);
        replica.store(t);

        StoredRecord other = value(K1, "hello", T0 + 500, HASH_B);
        assertThat(replica.store(other)).isTrue();
        assertThat(store.read(K1, other.valueHash())).contains(other);

        StoredRecord unremovable = value(K2, "hello", T0 + 500, Bytes.EMPTY);
        replica.store(tombstoneOf(unremovable, T0 + 1_000, HASH_A));
        assertThat(replica.store(unremovable)).isTrue();
        assertThat(store.read(K2, unremovable.valueHash())).contains(unremovable);
    }

    @Test
    void aTombstoneNeverRemovesAValueOfAnotherSecretNorOneWithoutAny() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, HASH_A);
        replica.store(v);
        assertThat(replica.store(tombstoneOf(v, T0 + 2_000, HASH_B))).isFalse();
        assertThat(replica.store(tombstoneOf(v, T0 + 2_000, Bytes.EMPTY))).isFalse();
        assertThat(store.read(K1, v.valueHash())).contains(v);

        StoredRecord t = tombstoneOf(v, T0 + 100, HASH_A);
        assertThat(replica.store(t)).as("even one that expires sooner than the value it removes").isTrue();
        assertThat(store.read(K1, v.valueHash())).contains(t);
    }

    @Test
    void laterExpiryWinsBetweenTwoValuesAndTheFirstSecretStays() {
        StoredRecord v = value(K1, "hello", T0 + 2_000, HASH_A);
        replica.store(v);

        assertThat(replica.store(value(K1, "hello", T0 + 1_000, HASH_B))).isTrue();
        assertThat(store.read(K1, v.valueHash())).contains(v);

        replica.store(value(K1, "hello", T0 + 2_000, HASH_B));
        assertThat(store.read(K1, v.valueHash())).as("a tie keeps the held record").contains(v);

        replica.store(value(K1, "hello", T0 + 3_000, HASH_B));
        assertThat(store.read(K1, v.valueHash())).as("re-putting with another secret cannot take over the remove")
                .contains(value(K1, "hello", T0 + 3_000, HASH_A));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void laterExpiryWinsBetweenTwoTombstones() {
        StoredRecord v = value(K1, "hello", T0, HASH_A);
        StoredRecord t = tombstoneOf(v, T0 + 2_000, HASH_A);
        replica.store(t);

        replica.store(tombstoneOf(v, T0 + 1_000, HASH_A));
        assertThat(store.read(K1, v.valueHash())).contains(t);

        StoredRecord later = tombstoneOf(v, T0 + 3_000, HASH_A);
        replica.store(later);
        assertThat(store.read(K1, v.valueHash())).contains(later);

        clock.setEpochMillis(T0 + 2_500);
        assertThat(store.purgeExpired(100)).isZero();
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aRemoveWritesATombstoneOnlyWhereItProvesTheSecret() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, HASH_A);
        replica.store(v);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 60)).isEqualTo(Status.FORBIDDEN);
        assertThat(replica.remove(K2, v.valueHash(), SECRET_A, 60)).as("not held here").isEqualTo(Status.NOT_FOUND);
        assertThat(store.size()).isEqualTo(1);

        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).isEqualTo(Status.OK);
        assertThat(store.read(K1, v.valueHash())).as("the tombstone outlives the value it removes")
                .contains(tombstoneOf(v, T0 + 10_000 + LocalReplica.TOMBSTONE_MARGIN_MILLIS, HASH_A));
        assertThat(replica.remove(K1, v.valueHash(), SECRET_A, 1)).as("removing twice").isEqualTo(Status.OK);
        assertThat(replica.remove(K1, v.valueHash(), SECRET_B, 1)).isEqualTo(Status.NOT_FOUND);
        assertThat(replica.store(v)).as("the put does not come back").isFalse();
    }
}
