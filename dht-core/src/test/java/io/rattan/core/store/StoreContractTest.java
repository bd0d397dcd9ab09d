package io.rattan.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.Store.Cursor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Store} must do, written once and run per implementation by three-line subclasses.
 *
 * <p>Time starts at {@link #T0} and moves only through {@link #clock}. Implementations that keep data across a restart
 * override {@link #reopen} so the persistence tests exercise it.
 */
public abstract class StoreContractTest {

    protected static final long T0 = 1_700_000_000_000L;

    private static final Comparator<StoredRecord> BY_SLOT =
            Comparator.comparing(StoredRecord::key).thenComparing(StoredRecord::slot);

    private static final Id K1 = Id.fromHex("1000000000000000000000000000000000000000");
    private static final Id K2 = Id.fromHex("2000000000000000000000000000000000000000");
    private static final Id K3 = Id.fromHex("f000000000000000000000000000000000000001");
    private static final Bytes SECRET_A = Bytes.utf8("secret a").sha256();
    private static final Bytes SECRET_B = Bytes.utf8("secret b").sha256();

    protected ManualTestClock clock;
    protected Store store;

    /** A fresh, empty store reading time from {@code clock}. */
    protected abstract Store newStore(ManualTestClock clock);

    /** The store as a restarted node would see it; stores without durable state return {@code old}. */
    protected Store reopen(Store old) {
        return old;
    }

    @BeforeEach
    void createStore() {
        clock = new ManualTestClock(T0);
        store = newStore(clock);
    }

    /**
     * A value put with {@code secret} (empty: none), holding its binding. The store applies no rule between records,
     * but it names each by its slot ({@link StoredRecord#slot}), which commits to the binding: the tombstone of a
     * remove with the same secret ({@link #tombstoneOf}) is named by the same slot.
     */
    private static StoredRecord value(Id key, String value, long expiresAtMillis, Bytes secret) {
        Bytes v = Bytes.utf8(value);
        return StoredRecord.value(key, v, expiresAtMillis,
                secret.isEmpty() ? Bytes.EMPTY : SecretBinding.of(secret, key, v.sha256()));
    }

    private static StoredRecord tombstoneOf(StoredRecord value, long expiresAtMillis, Bytes secret) {
        return StoredRecord.tombstone(value.key(), value.valueHash(), expiresAtMillis, secret);
    }

    @Test
    void aValueKeepsItsBindingAndATombstoneItsSecretAcrossAReopen() {
        StoredRecord bound = value(K1, "bound", T0 + 1_000, SECRET_A);
        StoredRecord unbound = value(K1, "unbound", T0 + 1_000, Bytes.EMPTY);
        StoredRecord longSecret = tombstoneOf(value(K2, "removed", T0, SECRET_B), T0 + 1_000,
                Bytes.wrap(new byte[StoredRecord.SECRET_BYTES_MAX]));
        StoredRecord shortSecret = tombstoneOf(value(K2, "gone", T0, SECRET_B), T0 + 1_000, Bytes.utf8("s"));
        StoredRecord migrated = tombstoneOf(value(K3, "old", T0, SECRET_B), T0 + 1_000, Bytes.EMPTY);
        List<StoredRecord> all = List.of(bound, unbound, longSecret, shortSecret, migrated);
        all.forEach(store::write);

        store = reopen(store);

        for (StoredRecord r : all) {
            assertThat(store.read(r.key(), r.slot())).contains(r);
        }
        assertThat(scanAll()).containsExactlyInAnyOrderElementsOf(all);
    }

    /** An owned value and an owned tombstone keep their owner's stamps; a higher sequence overwrites in place. */
    @Test
    void anOwnedRecordKeepsItsStampAcrossAReopen() {
        Bytes slot = Bytes.utf8("slot").sha256();
        OwnerStamp v1 = new OwnerStamp(Bytes.wrap(new byte[32]), -2L, 1, (T0 + 2_000) / 1000,
                Bytes.wrap(new byte[64]));
        StoredRecord value = StoredRecord.owned(K1, slot, Bytes.utf8("owned"), v1, false);
        byte[] sig = new byte[64];
        sig[63] = 9;
        OwnerStamp v2 = new OwnerStamp(Bytes.wrap(new byte[32]), -2L, -1L, (T0 + 3_000) / 1000, Bytes.wrap(sig));
        StoredRecord removed = StoredRecord.owned(K2, slot, Bytes.EMPTY, v2, true);
        store.write(value);
        store.write(removed);
        store = reopen(store);
        assertThat(store.read(K1, slot)).contains(value);
        assertThat(store.read(K2, slot)).contains(removed);

        StoredRecord next = StoredRecord.owned(K1, slot, Bytes.utf8("owned, again"), v2, false);
        store.write(next);
        store = reopen(store);
        assertThat(store.read(K1, slot)).contains(next);
        assertThat(scanAll()).containsExactlyInAnyOrder(next, removed);
    }

    private List<StoredRecord> scanAll() {
        return store.scan(Cursor.START, Integer.MAX_VALUE);
    }

    @Test
    void writtenValueIsReadBack() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        store.write(v);

        assertThat(store.read(K1, v.slot())).contains(v);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void valueWithoutSecretAndEmptyValueRoundTrip() {
        StoredRecord noSecret = value(K1, "open", T0 + 1_000, Bytes.EMPTY);
        StoredRecord empty = value(K1, "", T0 + 1_000, SECRET_A);
        store.write(noSecret);
        store.write(empty);

        assertThat(store.read(K1, noSecret.slot())).contains(noSecret);
        assertThat(store.read(K1, empty.slot())).contains(empty);
    }

    @Test
    void readOfMissingRecordIsEmpty() {
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        store.write(v);

        assertThat(store.read(K2, v.slot())).isEmpty();
        assertThat(store.read(K1, Bytes.utf8("other").sha256())).isEmpty();
        assertThat(store.read(K1, Bytes.EMPTY)).isEmpty();
        assertThat(store.read(K1, v.valueHash())).as("a value with a binding is not named by its hash").isEmpty();
        assertThat(store.read(K1, v.slot())).contains(v);
    }

    @Test
    void scanReturnsRecordsInKeyThenHashOrder() {
        List<StoredRecord> written = new ArrayList<>();
        for (Id key : List.of(K3, K1, K2)) {
            for (int i = 0; i < 4; i++) {
                StoredRecord v = value(key, "v" + i + key.shortHex(), T0 + 1_000 + i, SECRET_A);
                written.add(v);
                store.write(v);
            }
        }
        written.sort(BY_SLOT);

        assertThat(scanAll()).containsExactlyElementsOf(written);
        assertThat(store.scan(Cursor.START, 5)).containsExactlyElementsOf(written.subList(0, 5));
        assertThat(store.scan(Cursor.START, 0)).isEmpty();
    }

    @Test
    void scanCursorWithEmptyHashStartsAtFirstValueOfThatKey() {
        List<StoredRecord> k2 = new ArrayList<>();
        for (Id key : List.of(K1, K2, K3)) {
            for (int i = 0; i < 3; i++) {
                StoredRecord v = value(key, "v" + i, T0 + 1_000, SECRET_A);
                store.write(v);
                if (key.equals(K2)) {
                    k2.add(v);
                }
            }
        }
        k2.sort(BY_SLOT);

        List<StoredRecord> fromK2 = store.scan(Cursor.atKey(K2), 3);
        assertThat(fromK2).containsExactlyElementsOf(k2);
        // A key between stored keys starts at the next stored key.
        Id betweenK1AndK2 = Id.fromHex("1800000000000000000000000000000000000000");
        assertThat(store.scan(Cursor.atKey(betweenK1AndK2), 1)).containsExactly(k2.get(0));
        assertThat(store.scan(Cursor.atKey(Id.MAX), 10)).isEmpty();
    }

    @Test
    void scanKeyStopsAtTheKeysLastRecordAndKeepsTheCursorRule() {
        List<StoredRecord> k2 = new ArrayList<>();
        for (Id key : List.of(K1, K2, K3)) {
            for (int i = 0; i < 3; i++) {
                StoredRecord v = value(key, "v" + i, T0 + 1_000, SECRET_A);
                store.write(v);
                if (key.equals(K2)) {
                    k2.add(v);
                }
            }
        }
        k2.sort(BY_SLOT);

        assertThat(store.scanKey(Cursor.atKey(K2), 10)).containsExactlyElementsOf(k2);
        assertThat(store.scanKey(Cursor.atKey(K2), 2)).containsExactlyElementsOf(k2.subList(0, 2));
        assertThat(store.scanKey(new Cursor(K2, k2.get(0).slot()), 10)).containsExactlyElementsOf(k2.subList(1, 3));
        assertThat(store.scanKey(new Cursor(K2, k2.get(2).slot()), 10)).isEmpty();
        // A key with no records reads nothing, not the next key's records.
        assertThat(store.scanKey(Cursor.atKey(Id.fromHex("1800000000000000000000000000000000000000")), 10)).isEmpty();
        assertThat(store.scanKey(Cursor.atKey(K2), 0)).isEmpty();
    }

    @Test
    void scanCursorExcludesTheRecordItNames() {
        for (Id key : List.of(K1, K2)) {
            for (int i = 0; i < 3; i++) {
                store.write(value(key, "v" + i, T0 + 1_000, SECRET_A));
            }
        }
        List<StoredRecord> all = scanAll();
        StoredRecord second = all.get(1);

        assertThat(store.scan(new Cursor(second.key(), second.slot()), 100))
                .containsExactlyElementsOf(all.subList(2, all.size()));
        StoredRecord lastOfK1 = all.get(2);
        assertThat(store.scan(new Cursor(lastOfK1.key(), lastOfK1.slot()), 1)).containsExactly(all.get(3));
    }

    @Test
    void pagingWithTheLastRecordAsCursorVisitsEveryRecordOnce() {
        for (int i = 0; i < 23; i++) {
            Id key = Id.ofName("key" + (i % 7));
            store.write(value(key, "value" + i, T0 + 1_000, SECRET_A));
        }
        List<StoredRecord> paged = new ArrayList<>();
        Cursor cursor = Cursor.START;
        while (true) {
            List<StoredRecord> page = store.scan(cursor, 4);
            assertThat(page.size()).isLessThanOrEqualTo(4);
            if (page.isEmpty()) {
                break;
            }
            paged.addAll(page);
            StoredRecord last = page.get(page.size() - 1);
            cursor = new Cursor(last.key(), last.slot());
        }
        assertThat(paged).hasSize(23).containsExactlyElementsOf(scanAll()).isSortedAccordingTo(BY_SLOT);
    }

    @Test
    void aRecordWrittenAfterItsExpiryIsHiddenAndKeptForAClockSetBackThenPurged() {
        // A node whose expiry clock booted an hour ahead takes copies that are live by true time; its peers set it back.
        StoredRecord copy = value(K1, "live by true time", T0 + 60_000, SECRET_A);
        clock.setEpochMillis(T0 + 3_600_000);

        store.write(copy);

        assertThat(store.read(K1, copy.slot())).as("expired by the clock").isEmpty();
        assertThat(scanAll()).isEmpty();
        clock.setEpochMillis(T0);
        assertThat(store.read(K1, copy.slot())).as("the clock set back").contains(copy);
        assertThat(scanAll()).containsExactly(copy);
        clock.setEpochMillis(T0 + 60_000);
        assertThat(store.purgeExpired(100)).isOne();
        assertThat(store.size()).isZero();
    }

    @Test
    void expiredRecordsAreNeverReturnedEvenBeforePurge() {
        StoredRecord shortLived = value(K1, "short", T0 + 100, SECRET_A);
        StoredRecord longLived = value(K1, "long", T0 + 10_000, SECRET_A);
        StoredRecord tombstone = tombstoneOf(value(K2, "gone", T0, SECRET_A), T0 + 100, SECRET_A);
        store.write(shortLived);
        store.write(longLived);
        store.write(tombstone);

        clock.advanceMillis(100);

        assertThat(store.read(K1, shortLived.slot())).isEmpty();
        assertThat(store.read(K2, tombstone.slot())).isEmpty();
        assertThat(store.read(K1, longLived.slot())).contains(longLived);
        assertThat(scanAll()).containsExactly(longLived);
        assertThat(store.scan(Cursor.START, 1)).containsExactly(longLived);
        assertThat(store.size()).as("expired but not yet purged").isEqualTo(3);
    }

    @Test
    void purgeRemovesExpiredRecordsUpToTheLimit() {
        for (int i = 0; i < 5; i++) {
            store.write(value(K1, "expiring" + i, T0 + 10 + i, SECRET_A));
        }
        StoredRecord live = value(K2, "live", T0 + 10_000, SECRET_A);
        StoredRecord liveTombstone = tombstoneOf(value(K2, "removed", T0, SECRET_A), T0 + 10_000, SECRET_A);
        store.write(live);
        store.write(liveTombstone);
        assertThat(store.purgeExpired(100)).as("nothing has expired yet").isZero();

        clock.advanceMillis(1_000);

        assertThat(store.purgeExpired(2)).isEqualTo(2);
        assertThat(store.size()).isEqualTo(5);
        assertThat(store.purgeExpired(0)).isZero();
        assertThat(store.purgeExpired(100)).isEqualTo(3);
        assertThat(store.size()).isEqualTo(2);
        assertThat(store.purgeExpired(100)).isZero();
        assertThat(scanAll()).containsExactlyInAnyOrder(live, liveTombstone);
    }

    @Test
    void purgeTakesTheEarliestExpiryFirst() {
        StoredRecord early = value(K3, "early", T0 + 100, SECRET_A);
        StoredRecord late = value(K1, "late", T0 + 200, SECRET_A);
        store.write(late);
        store.write(early);

        clock.setEpochMillis(T0 + 300);
        assertThat(store.purgeExpired(1)).isEqualTo(1);

        // Wall clocks can step back; doing so here shows which record the purge took.
        clock.setEpochMillis(T0 + 150);
        assertThat(scanAll()).containsExactly(late);
    }

    @Test
    void purgeUsesTheExpiryOfTheRecordNowHeld() {
        StoredRecord first = value(K1, "v", T0 + 100, SECRET_A);
        StoredRecord extended = value(K1, "v", T0 + 300, SECRET_A);
        store.write(first);
        store.write(extended);

        clock.setEpochMillis(T0 + 200);

        assertThat(store.purgeExpired(100)).isZero();
        assertThat(store.read(K1, first.slot())).contains(extended);
        assertThat(store.size()).isEqualTo(1);

        clock.setEpochMillis(T0 + 300);
        assertThat(store.purgeExpired(100)).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    /** The store applies no rule between records: that is the node's (TombstoneRuleTest); it holds the last write. */
    @Test
    void aWriteReplacesWhatIsHeldUnderTheSameKeyAndSlot() {
        StoredRecord v = value(K1, "hello", T0 + 2_000, SECRET_A);
        store.write(v);
        StoredRecord sooner = value(K1, "hello", T0 + 1_000, SECRET_A);
        store.write(sooner);
        assertThat(store.read(K1, v.slot())).contains(sooner);

        StoredRecord t = tombstoneOf(v, T0 + 500, SECRET_A);
        store.write(t);
        StoredRecord again = value(K1, "hello", T0 + 300, SECRET_A);
        store.write(again);
        assertThat(store.read(K1, v.slot())).contains(again);
        assertThat(store.size()).isEqualTo(1);

        clock.setEpochMillis(T0 + 300);
        assertThat(store.purgeExpired(100)).as("only the held record's expiry entry is left").isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    /**
     * A record is named by its key and slot: the same bytes put with two secrets, and without one, are three records;
     * a bound value is not found by its hash; a tombstone takes the slot of the value its secret opens.
     */
    @Test
    void theSameBytesUnderTwoBindingsAndUnderNoneAreThreeRecords() {
        StoredRecord ofA = value(K1, "hello", T0 + 1_000, SECRET_A);
        StoredRecord ofB = value(K1, "hello", T0 + 2_000, SECRET_B);
        StoredRecord unbound = value(K1, "hello", T0 + 3_000, Bytes.EMPTY);
        List<StoredRecord> all = new ArrayList<>(List.of(ofA, ofB, unbound));
        all.forEach(store::write);
        all.sort(BY_SLOT);

        assertThat(store.size()).isEqualTo(3);
        assertThat(unbound.slot()).as("a value without a binding is named by its hash").isEqualTo(unbound.valueHash());
        assertThat(store.read(K1, ofA.valueHash())).as("the hash names the unbound copy only").contains(unbound);
        assertThat(store.read(K1, ofA.slot())).contains(ofA);
        assertThat(store.read(K1, ofB.slot())).contains(ofB);
        assertThat(scanAll()).containsExactlyElementsOf(all);

        StoredRecord removedOfA = tombstoneOf(ofA, T0 + 4_000, SECRET_A);
        store.write(removedOfA);
        store = reopen(store);

        assertThat(store.size()).isEqualTo(3);
        assertThat(store.read(K1, ofA.slot())).contains(removedOfA);
        assertThat(store.read(K1, ofB.slot())).contains(ofB);
        assertThat(store.read(K1, unbound.slot())).contains(unbound);
    }

    @Test
    void tombstoneReplacesLiveValue() {
        StoredRecord v = value(K1, "hello", T0 + 10_000, SECRET_A);
        store.write(v);
        // Even one that expires sooner than the value it removes.
        StoredRecord t = tombstoneOf(v, T0 + 100, SECRET_A);
        store.write(t);

        assertThat(store.read(K1, v.slot())).contains(t);
        assertThat(scanAll()).containsExactly(t);
        assertThat(store.size()).isEqualTo(1);

        clock.advanceMillis(100);
        assertThat(store.read(K1, v.slot())).isEmpty();
        assertThat(store.purgeExpired(100)).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    @Test
    void valueMeetingAnExpiredTombstoneIsStored() {
        StoredRecord v = value(K1, "hello", T0 + 5_000, SECRET_A);
        store.write(tombstoneOf(v, T0 + 100, SECRET_A));
        clock.advanceMillis(100);

        store.write(v);

        assertThat(store.read(K1, v.slot())).contains(v);
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.purgeExpired(100)).as("the tombstone's expiry entry went with it").isZero();
    }

    @Test
    void aWriteOfAnAlreadyExpiredRecordIsKeptHiddenAndPurged() {
        // The store applies no rule: an expired write replaces what it is written over, as any write does.
        StoredRecord v = value(K1, "hello", T0 + 1_000, SECRET_A);
        store.write(value(K2, "stale", T0, SECRET_A));
        store.write(v);
        store.write(tombstoneOf(v, T0 - 1, SECRET_A));

        assertThat(store.size()).isEqualTo(2);
        assertThat(scanAll()).isEmpty();
        assertThat(store.purgeExpired(100)).isEqualTo(2);
        assertThat(store.size()).isZero();
    }

    @Test
    void sizeCountsRecordsNotWrites() {
        assertThat(store.size()).isZero();
        StoredRecord a = value(K1, "a", T0 + 1_000, SECRET_A);
        store.write(a);
        store.write(a);
        store.write(value(K1, "a", T0 + 2_000, SECRET_A));
        store.write(value(K1, "b", T0 + 1_000, SECRET_A));
        store.write(value(K2, "a", T0 + 1_000, SECRET_A));
        store.write(tombstoneOf(a, T0 + 1_000, SECRET_A));

        assertThat(store.size()).isEqualTo(3);
    }

    @Test
    void dataSurvivesReopen() {
        StoredRecord v1 = value(K1, "one", T0 + 1_000, SECRET_A);
        StoredRecord v2 = value(K2, "two", T0 + 2_000, Bytes.EMPTY);
        StoredRecord t = tombstoneOf(value(K3, "three", T0, SECRET_B), T0 + 3_000, SECRET_B);
        StoredRecord expiring = value(K3, "soon", T0 + 10, SECRET_A);
        for (StoredRecord r : List.of(v1, v2, t, expiring)) {
            store.write(r);
        }
        List<StoredRecord> before = scanAll();

        store = reopen(store);

        assertThat(store.size()).isEqualTo(4);
        assertThat(scanAll()).containsExactlyElementsOf(before);
        assertThat(store.read(K1, v1.slot())).contains(v1);
        assertThat(store.read(K3, t.slot())).contains(t);

        clock.advanceMillis(10);
        assertThat(store.purgeExpired(100)).isEqualTo(1);
        assertThat(store.size()).isEqualTo(3);
    }

    @Test
    void purgedRecordsStayGoneAfterReopen() {
        StoredRecord expiring = value(K1, "soon", T0 + 10, SECRET_A);
        StoredRecord live = value(K2, "later", T0 + 10_000, SECRET_A);
        store.write(expiring);
        store.write(live);
        clock.advanceMillis(10);
        assertThat(store.purgeExpired(100)).isEqualTo(1);

        store = reopen(store);
        // Stepping the clock back would show a purged record if any trace of it were left.
        clock.setEpochMillis(T0);

        assertThat(store.size()).isEqualTo(1);
        assertThat(store.read(K1, expiring.slot())).isEmpty();
        assertThat(scanAll()).containsExactly(live);
        assertThat(store.purgeExpired(100)).isZero();
    }
}
