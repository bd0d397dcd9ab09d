package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replica's reads with a {@link ValueFilter}: a page holds only matching values (an owner's, or one value of an
 * owner; never an unowned one), and its placemark continues among them, for both a get's page and a quorum read's
 * records (owned tombstones included). Reading does not check signatures, so the stamps here are not signed.
 */
class FilteredReadsTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final Id KEY = Id.ofName("filtered");
    private static final Bytes ALICE = owner(0x0a);
    private static final Bytes BOB = owner(0x0b);

    private MemoryStore store;
    private LocalReplica replica;

    @BeforeEach
    void fill() {
        ManualTestClock clock = new ManualTestClock(NOW);
        store = new MemoryStore(clock::epochMillis);
        replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
        for (int i = 0; i < 5; i++) {
            store.write(StoredRecord.value(KEY, Bytes.utf8("unowned " + i), NOW + 60_000, Bytes.EMPTY));
            store.write(owned(ALICE, i, "alice " + i, false));
            store.write(owned(BOB, i, "bob " + i, false));
        }
        store.write(owned(ALICE, 9, "", true));
    }

    private static Bytes owner(int fill) {
        byte[] b = new byte[OwnerStamp.OWNER_BYTES];
        Arrays.fill(b, (byte) fill);
        return Bytes.wrap(b);
    }

    private static StoredRecord owned(Bytes owner, long valueId, String data, boolean removed) {
        OwnerStamp stamp = new OwnerStamp(owner, valueId, 1, NOW / 1000 + 60, Bytes.wrap(new byte[64]));
        return StoredRecord.owned(KEY, OwnedSlot.of(SignedBytes.DEFAULT_NAMESPACE, owner, valueId),
                Bytes.utf8(data), stamp, removed);
    }

    /** Every page of {@code max} values, following placemarks, as strings. */
    private List<String> walk(ValueFilter filter, int max) {
        List<String> out = new ArrayList<>();
        Bytes mark = Bytes.EMPTY;
        do {
            GetReply page = replica.readPage(KEY, max, mark, 0, filter);
            assertThat(page.values()).hasSizeLessThanOrEqualTo(max).isNotEmpty();
            page.values().forEach(v -> out.add(new String(v.value().toByteArray(), StandardCharsets.UTF_8)));
            mark = page.placemark();
        } while (!mark.isEmpty());
        return out;
    }

    @Test
    void aPageOfAnOwnersValuesHoldsOnlyThemAndItsPlacemarkWalksOnlyThem() {
        assertThat(walk(ValueFilter.owner(ALICE), 1)).containsExactlyInAnyOrder("alice 0", "alice 1", "alice 2",
                "alice 3", "alice 4");
        assertThat(walk(ValueFilter.owner(BOB), 2)).hasSize(5).allMatch(v -> v.startsWith("bob "));
        assertThat(walk(ValueFilter.value(BOB, 3), 1)).containsExactly("bob 3");
        assertThat(walk(ValueFilter.NONE, 4)).hasSize(15);
        assertThat(replica.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.value(BOB, 7)).values()).isEmpty();
        assertThat(replica.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.owner(owner(0x0c))).values()).isEmpty();
    }

    @Test
    void aQuorumReadOfAnOwnerReadsItsRecordsTombstonesIncludedAndSaysWhenMoreFollow() {
        List<StoredRecord> all = new ArrayList<>();
        Bytes mark = Bytes.EMPTY;
        RecordPage page;
        do {
            page = replica.readRecords(KEY, mark, 2, ValueFilter.owner(ALICE));
            assertThat(page.records()).hasSizeBetween(1, 2);
            all.addAll(page.records());
            mark = page.records().get(page.records().size() - 1).slot();
        } while (page.more());
        assertThat(all).hasSize(6).allMatch(r -> r.stamp().owner().equals(ALICE));
        assertThat(all).filteredOn(StoredRecord::tombstone).hasSize(1);
        RecordPage one = replica.readRecords(KEY, Bytes.EMPTY, 0, ValueFilter.value(ALICE, 9));
        assertThat(one.records()).singleElement().matches(StoredRecord::tombstone);
        assertThat(one.more()).isFalse();
    }
}
