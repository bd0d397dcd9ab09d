package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The merge of a quorum get, record by record: what it answers and what it sends each replica, against the tombstone
 * rule, expiry and pages.
 */
class ReadMergeTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    private static final Bytes OWNER = Bytes.utf8("owner");
    private static final Bytes OTHER = Bytes.utf8("someone else");
    private static final Contact A = contact(1);
    private static final Contact B = contact(2);
    private static final Contact C = contact(3);

    private static Contact contact(int n) {
        return new Contact(Id.fromHex(String.format("%040x", n)), new Address("10.0.0." + n, 4000));
    }

    /** A value removable by whoever holds {@code secret} (empty: by nobody). */
    private static StoredRecord value(String v, long ttlMillis, Bytes secret) {
        Bytes value = Bytes.utf8(v);
        return StoredRecord.value(KEY, value, NOW + ttlMillis,
                secret.isEmpty() ? Bytes.EMPTY : SecretBinding.of(secret, KEY, value.sha256()));
    }

    private static StoredRecord tombstone(StoredRecord of, long ttlMillis) {
        return StoredRecord.tombstone(KEY, of.valueHash(), NOW + ttlMillis, OWNER);
    }

    /** A replica's page: its records in slot order, as a store scan returns them. */
    private static ReadMerge.Answer answer(Contact from, boolean more, StoredRecord... records) {
        List<StoredRecord> sorted = new ArrayList<>(List.of(records));
        sorted.sort(Comparator.comparing(StoredRecord::slot));
        return new ReadMerge.Answer(from, sorted, more);
    }

    private static ReadMerge.Result merge(ReadMerge.Answer... answers) {
        return ReadMerge.merge(List.of(answers), 256, 256 * 1024, NOW, true);
    }

    private static List<Bytes> values(ReadMerge.Result r) {
        return r.values().stream().map(ValueEntry::value).collect(Collectors.toList());
    }

    private static Map<Contact, List<StoredRecord>> repairs(ReadMerge.Result r) {
        return r.repairs().stream().collect(Collectors.toMap(ReadMerge.Repair::to, ReadMerge.Repair::records));
    }

    @Test
    void theAnswerIsTheUnionAndEachReplicaIsSentWhatItLacks() {
        StoredRecord x = value("x", 60_000, OWNER);
        StoredRecord y = value("y", 60_000, Bytes.EMPTY);
        StoredRecord z = value("z", 60_000, OWNER);

        ReadMerge.Result r = merge(answer(A, false, x, y), answer(B, false, y, z), answer(C, false, x, y, z));

        assertThat(values(r)).containsExactlyInAnyOrder(x.value(), y.value(), z.value());
        assertThat(r.placemark()).isEqualTo(Bytes.EMPTY);
        assertThat(repairs(r)).containsOnlyKeys(A, B);
        assertThat(repairs(r).get(A)).containsExactly(z);
        assertThat(repairs(r).get(B)).containsExactly(x);
        assertThat(r.repairedRecords()).isEqualTo(2);
    }

    @Test
    void aClockNotYetSettledJudgesNothingExpiredAndTheOthersAnswersAreKept() {
        // This node booted an hour ahead: by its clock the other replicas' live records expired long ago (seed 1640).
        StoredRecord x = value("x", 60_000, OWNER);
        long anHourAhead = NOW + 3_600_000L;

        assertThat(values(ReadMerge.merge(List.of(answer(A, false), answer(B, false, x)), 256, 256 * 1024,
                anHourAhead, true))).as("judged by that clock").isEmpty();
        ReadMerge.Result r = ReadMerge.merge(List.of(answer(A, false), answer(B, false, x)), 256, 256 * 1024,
                anHourAhead, false);

        assertThat(values(r)).containsExactly(x.value());
        assertThat(r.values().get(0).ttlRemainingMillis()).as("none left by that clock, never below 0").isZero();
        assertThat(repairs(r)).containsOnlyKeys(A);
    }

    @Test
    void replicasThatAgreeAreSentNothing() {
        StoredRecord x = value("x", 60_000, OWNER);

        ReadMerge.Result r = merge(answer(A, false, x), answer(B, false, x));

        assertThat(values(r)).containsExactly(x.value());
        assertThat(r.values().get(0).ttlRemainingMillis()).isEqualTo(60_000);
        assertThat(r.repairs()).isEmpty();
    }

    @Test
    void aTombstoneWinsOverItsOwnersValueWhicheverReplicaIsFirst() {
        StoredRecord x = value("x", 60_000, OWNER);
        StoredRecord removed = tombstone(x, 120_000);

        for (boolean valueFirst : new boolean[] {true, false}) {
            ReadMerge.Result r = valueFirst ? merge(answer(A, false, x), answer(B, false, removed))
                    : merge(answer(B, false, removed), answer(A, false, x));

            assertThat(values(r)).as("value first: %s", valueFirst).isEmpty();
            assertThat(repairs(r)).containsOnlyKeys(A);
            assertThat(repairs(r).get(A)).containsExactly(removed);
        }
    }

    @Test
    void aReplicaThatMissedTheValueAndTheRemoveGetsTheTombstone() {
        StoredRecord x = value("x", 60_000, OWNER);
        StoredRecord removed = tombstone(x, 120_000);

        ReadMerge.Result r = merge(answer(A, false, removed), answer(B, false));

        assertThat(values(r)).isEmpty();
        assertThat(repairs(r)).containsOnlyKeys(B);
        assertThat(repairs(r).get(B)).containsExactly(removed);
    }

    /**
     * A tombstone of another secret lives in the slot of the value that secret opens, not in the value's: it hides
     * nothing, and each replica is sent the record it lacks, as for any two records of two slots.
     */
    @Test
    void aTombstoneOfAnotherSecretHidesNothingAndIsKeptInItsOwnSlot() {
        StoredRecord x = value("x", 60_000, OWNER);
        StoredRecord forged = StoredRecord.tombstone(KEY, x.valueHash(), NOW + 120_000, OTHER);
        assertThat(forged.slot()).isNotEqualTo(x.slot());

        ReadMerge.Result r = merge(answer(A, false, forged), answer(B, false, x));

        assertThat(values(r)).containsExactly(x.value());
        assertThat(repairs(r)).containsOnlyKeys(A, B);
        assertThat(repairs(r).get(A)).containsExactly(x);
        assertThat(repairs(r).get(B)).containsExactly(forged);
    }

    /** The same bytes put with two secrets are two records: the answer gives them once, with the longer time left. */
    @Test
    void theSameBytesUnderTwoBindingsAreAnsweredOnceAndEachCopyIsRepaired() {
        StoredRecord mine = value("x", 60_000, OWNER);
        StoredRecord theirs = value("x", 90_000, OTHER);

        ReadMerge.Result r = merge(answer(A, false, mine), answer(B, false, theirs));

        assertThat(r.values()).containsExactly(new ValueEntry(mine.value(), 90_000));
        assertThat(repairs(r)).containsOnlyKeys(A, B);
        assertThat(repairs(r).get(A)).containsExactly(theirs);
        assertThat(repairs(r).get(B)).containsExactly(mine);
    }

    @Test
    void theLaterExpiryWinsAndRefreshesTheOlderCopy() {
        StoredRecord older = value("x", 10_000, OWNER);
        StoredRecord newer = value("x", 90_000, OWNER);

        ReadMerge.Result r = merge(answer(A, false, older), answer(B, false, newer));

        assertThat(r.values()).hasSize(1);
        assertThat(r.values().get(0).ttlRemainingMillis()).isEqualTo(90_000);
        assertThat(repairs(r)).containsOnlyKeys(A);
        assertThat(repairs(r).get(A)).containsExactly(newer);
    }

    @Test
    void anExpiredRecordIsNeitherAnsweredNorSpread() {
        StoredRecord expired = value("old", 0, OWNER);
        StoredRecord live = value("new", 5_000, OWNER);
        StoredRecord expiredTombstone = tombstone(live, -1);

        ReadMerge.Result r = merge(answer(A, false, expired, expiredTombstone, live), answer(B, false, live));

        assertThat(values(r)).containsExactly(live.value());
        assertThat(r.repairs()).isEmpty();
    }

    @Test
    void aCutPageLimitsTheMergeToWhatEveryReplicaSpokeFor() {
        List<StoredRecord> records = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            records.add(value("v" + i, 60_000, Bytes.EMPTY));
        }
        records.sort(Comparator.comparing(StoredRecord::slot));
        // A's page stopped after the third record; B holds all but the second and fifth.
        ReadMerge.Answer a = new ReadMerge.Answer(A, records.subList(0, 3), true);
        ReadMerge.Answer b = new ReadMerge.Answer(B, List.of(records.get(0), records.get(2), records.get(3),
                records.get(5)), false);

        ReadMerge.Result r = merge(a, b);

        assertThat(values(r)).containsExactly(records.get(0).value(), records.get(1).value(),
                records.get(2).value());
        assertThat(r.placemark()).isEqualTo(records.get(2).slot());
        // Nothing past the cut is repaired: A said nothing about it.
        assertThat(repairs(r)).containsOnlyKeys(B);
        assertThat(repairs(r).get(B)).containsExactly(records.get(1));
    }

    @Test
    void aFullPageEndsAtItsLastValueAndRepairsNoFurther() {
        List<StoredRecord> records = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            records.add(value("w" + i, 60_000, Bytes.EMPTY));
        }
        records.sort(Comparator.comparing(StoredRecord::slot));

        ReadMerge.Result r = ReadMerge.merge(List.of(new ReadMerge.Answer(A, records, false),
                new ReadMerge.Answer(B, List.of(), false)), 2, 256 * 1024, NOW, true);

        assertThat(values(r)).containsExactly(records.get(0).value(), records.get(1).value());
        assertThat(r.placemark()).isEqualTo(records.get(1).slot());
        assertThat(repairs(r).get(B)).containsExactly(records.get(0), records.get(1));
    }

    @Test
    void theByteLimitCutsThePageButNeverBelowOneValue() {
        StoredRecord big = StoredRecord.value(KEY, Bytes.wrap(new byte[900]), NOW + 60_000, Bytes.EMPTY);
        StoredRecord other = StoredRecord.value(KEY, Bytes.wrap(new byte[800]), NOW + 60_000, Bytes.EMPTY);

        ReadMerge.Result r = ReadMerge.merge(List.of(answer(A, false, big, other)), 256, 500, NOW, true);

        assertThat(r.values()).hasSize(1);
        assertThat(r.placemark()).isEqualTo(r.values().get(0).value().sha256());
    }
}
