package io.rattan.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.Store.Cursor;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreContractTest;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

class RocksDbStoreTest extends StoreContractTest {

    @TempDir
    Path dir;

    private ManualTestClock storeClock;
    private final List<RocksDbStore> opened = new ArrayList<>();

    @Override
    protected Store newStore(ManualTestClock clock) {
        storeClock = clock;
        return open();
    }

    @Override
    protected Store reopen(Store old) {
        ((RocksDbStore) old).close();
        return open();
    }

    @AfterEach
    void closeStores() {
        opened.forEach(RocksDbStore::close);
    }

    private RocksDbStore open() {
        RocksDbStore s = RocksDbStore.open(dir.resolve("db"), storeClock::epochMillis);
        opened.add(s);
        return s;
    }

    private static StoredRecord value(String key, String value, long expiresAtMillis) {
        return StoredRecord.value(Id.ofName(key), Bytes.utf8(value), expiresAtMillis, Bytes.EMPTY);
    }

    @Test
    void theExpiryClocksMarkSurvivesAReopenAndIsNoRecord() {
        RocksDbStore rocks = (RocksDbStore) store;
        assertThat(rocks.clockMark()).isZero();
        rocks.clockMark(T0 + 1234);
        RocksDbStore reopened = (RocksDbStore) reopen(rocks);
        assertThat(reopened.clockMark()).isEqualTo(T0 + 1234);
        assertThat(reopened.size()).isZero();
    }

    @Test
    void expiryIndexEmptiesWithThePurgeAndStaysEmptyAfterReopen() {
        RocksDbStore rocks = (RocksDbStore) store;
        for (int i = 0; i < 10; i++) {
            rocks.write(value("k" + i, "v", T0 + 10 + i));
        }
        // Replacing a record moves its index entry rather than adding one.
        rocks.write(value("k0", "v", T0 + 50));
        assertThat(rocks.expiryIndexSize()).isEqualTo(10);

        clock.advanceMillis(100);
        assertThat(rocks.purgeExpired(Integer.MAX_VALUE)).isEqualTo(10);
        assertThat(rocks.size()).isZero();
        assertThat(rocks.expiryIndexSize()).isZero();

        RocksDbStore reopened = (RocksDbStore) reopen(rocks);
        assertThat(reopened.size()).isZero();
        assertThat(reopened.expiryIndexSize()).isZero();
    }

    @Test
    void largePurgeSpansSeveralBatches() {
        RocksDbStore rocks = (RocksDbStore) store;
        for (int i = 0; i < 2_500; i++) {
            rocks.write(value("k" + i, "v" + i, T0 + 1 + i % 17));
        }
        rocks.write(value("live", "v", T0 + 10_000));
        clock.advanceMillis(100);

        assertThat(rocks.purgeExpired(2_000)).isEqualTo(2_000);
        assertThat(rocks.purgeExpired(Integer.MAX_VALUE)).isEqualTo(500);
        assertThat(rocks.size()).isEqualTo(1);
        assertThat(rocks.expiryIndexSize()).isEqualTo(1);
        assertThat(((RocksDbStore) reopen(rocks)).size()).isEqualTo(1);
    }

    @Test
    void undecodableRecordIsSkippedCountedOnceAndCanBeOverwritten() throws RocksDBException {
        StoredRecord good = value("good", "v", T0 + 1_000);
        StoredRecord victim = value("victim", "v", T0 + 1_000);
        store.write(good);
        ((RocksDbStore) store).close();
        putRaw(RecordFormat.dataKey(victim.key(), victim.valueHash()), new byte[] {9, 9, 9});

        RocksDbStore rocks = open();
        assertThat(rocks.size()).isEqualTo(2);
        // Served as missing, so that a replica's copy repairs it; scans go past it, every time.
        assertThat(rocks.read(victim.key(), victim.valueHash())).isEmpty();
        assertThat(rocks.scan(Cursor.START, 10)).containsExactly(good);
        assertThat(rocks.scan(Cursor.START, 10)).containsExactly(good);
        assertThat(rocks.corruptRecords()).isEqualTo(1);
        assertThat(rocks.healthy()).isTrue();

        rocks.write(victim);
        assertThat(rocks.read(victim.key(), victim.valueHash())).contains(victim);
        assertThat(rocks.scan(Cursor.START, 10)).hasSize(2);
        assertThat(rocks.size()).isEqualTo(2);
    }

    /**
     * The same bytes put under one key with two secrets are two records, each in its slot; the remove with one secret
     * replaces only the value it opens; purging finds records by slot through the expiry index.
     */
    @Test
    void theSameBytesUnderTwoBindingsAreTwoRecordsAndATombstoneReplacesOnlyItsOwn() {
        RocksDbStore rocks = (RocksDbStore) store;
        Id key = Id.ofName("shared");
        Bytes bytes = Bytes.utf8("the same bytes");
        Bytes secretA = Bytes.utf8("secret a");
        StoredRecord a = bound(key, bytes, secretA, T0 + 1_000);
        StoredRecord b = bound(key, bytes, Bytes.utf8("secret b"), T0 + 2_000);
        rocks.write(a);
        rocks.write(b);
        assertThat(rocks.read(key, a.slot())).contains(a);
        assertThat(rocks.read(key, b.slot())).contains(b);
        assertThat(rocks.read(key, bytes.sha256())).as("nothing is named by the bare hash").isEmpty();
        assertThat(rocks.scanKey(Cursor.atKey(key), 10)).containsExactlyInAnyOrder(a, b);
        assertThat(rocks.size()).isEqualTo(2);

        StoredRecord removeA = StoredRecord.tombstone(key, bytes.sha256(), T0 + 3_000, secretA);
        rocks.write(removeA);
        RocksDbStore reopened = (RocksDbStore) reopen(rocks);
        assertThat(reopened.read(key, a.slot())).contains(removeA);
        assertThat(reopened.read(key, b.slot())).contains(b);
        assertThat(reopened.scanKey(Cursor.atKey(key), 10)).containsExactlyInAnyOrder(removeA, b);
        assertThat(reopened.size()).isEqualTo(2);
        assertThat(reopened.expiryIndexSize()).as("the tombstone took its value's index entry").isEqualTo(2);

        clock.advanceMillis(2_000);
        assertThat(reopened.purgeExpired(100)).isOne();
        assertThat(reopened.read(key, a.slot())).contains(removeA);
        assertThat(reopened.expiryIndexSize()).isOne();
        clock.advanceMillis(1_000);
        assertThat(reopened.purgeExpired(100)).isOne();
        assertThat(reopened.size()).isZero();
        assertThat(reopened.expiryIndexSize()).isZero();
    }

    /** Records whose slot is their hash are as small as before slots; only one named by slot holds its hash. */
    @Test
    void onlyARecordNamedBySlotCarriesItsValueHash() {
        Id key = Id.ofName("k");
        StoredRecord open = StoredRecord.value(key, Bytes.utf8("v"), T0, Bytes.EMPTY);
        StoredRecord bound = bound(key, Bytes.utf8("v"), Bytes.utf8("s"), T0);
        // version, flags, expiry, binding length, secret length, value
        assertThat(RecordFormat.encode(open, open.slot())).hasSize(1 + 1 + 8 + 1 + 2 + 1);
        assertThat(RecordFormat.encode(bound, bound.slot())).hasSize(1 + 1 + 8 + 1 + 32 + 32 + 2 + 1);
    }

    /**
     * A record under a slot that cannot name it is corrupt: a bound value's bytes under its bare hash (where a store
     * of format 3 held it), a tombstone with a secret under its value's hash, and a value without a binding that
     * carries a hash other than its slot are skipped and counted, never served.
     */
    @Test
    void aRecordUnderASlotThatCannotNameItIsSkippedAsCorrupt() throws RocksDBException {
        StoredRecord good = value("good", "v", T0 + 1_000);
        store.write(good);
        ((RocksDbStore) store).close();
        Id key = Id.ofName("moved");
        StoredRecord moved = bound(key, Bytes.utf8("v"), Bytes.utf8("s"), T0 + 1_000);
        StoredRecord tombstone = StoredRecord.tombstone(key, Bytes.utf8("w").sha256(), T0 + 1_000, Bytes.utf8("s"));
        StoredRecord open = StoredRecord.value(key, Bytes.utf8("x"), T0 + 1_000, Bytes.EMPTY);
        Bytes elsewhere = Bytes.utf8("elsewhere").sha256();
        putRaw(RecordFormat.dataKey(key, moved.valueHash()), RecordFormat.encode(moved, moved.slot()));
        putRaw(RecordFormat.dataKey(key, tombstone.valueHash()), RecordFormat.encode(tombstone, tombstone.slot()));
        // Written as if named by slot: it carries its hash, which is not the slot it is under.
        putRaw(RecordFormat.dataKey(key, elsewhere), RecordFormat.encode(open, elsewhere));

        RocksDbStore rocks = open();
        assertThat(rocks.read(key, moved.valueHash())).isEmpty();
        assertThat(rocks.read(key, moved.slot())).isEmpty();
        assertThat(rocks.read(key, tombstone.valueHash())).isEmpty();
        assertThat(rocks.read(key, elsewhere)).isEmpty();
        assertThat(rocks.scan(Cursor.START, 10)).containsExactly(good);
        assertThat(rocks.corruptRecords()).isEqualTo(3);
    }

    /** A record read back carries the slot it was read under, so no reader hashes its binding again. */
    @Test
    void aBoundRecordReadBackIsEqualToTheOneWrittenSlotIncluded() {
        Id key = Id.ofName("k");
        StoredRecord bound = bound(key, Bytes.utf8("v"), Bytes.utf8("s"), T0 + 1_000);
        store.write(bound);
        assertThat(store.read(key, bound.slot())).contains(bound);
        assertThat(store.read(key, bound.slot()).orElseThrow().slot()).isEqualTo(bound.slot());
        assertThat(store.scanKey(Cursor.atKey(key), 10)).containsExactly(bound);
    }

    private static StoredRecord bound(Id key, Bytes value, Bytes secret, long expiresAtMillis) {
        return StoredRecord.value(key, value, expiresAtMillis, SecretBinding.of(secret, key, value.sha256()));
    }

    /**
     * At 256 KiB, writes as fast as the store takes them fill the memtables while a flush the limit will refuse is
     * under way: a blocking write then waited for ever, and the store thread with it, where it must fail as FULL.
     */
    @ParameterizedTest
    @ValueSource(ints = {64 << 10, 256 << 10})
    void aFullStoreFailsWritesAsFullIsUnhealthyAndRecoversWhenSpaceReturns(int maxSpaceBytes) throws Exception {
        ((RocksDbStore) store).close();
        RocksDbStore rocks = RocksDbStore.open(dir.resolve("small"), storeClock::epochMillis,
                new RocksDbStore.Settings(false, maxSpaceBytes), Runnable::run);
        opened.add(rocks);
        AtomicInteger written = new AtomicInteger();
        StoreException refused = fillUntilRefused(rocks, T0 + 1_000_000, written);
        assertThat(refused).as("a write beyond the space limit fails").isNotNull();
        assertThat(refused.kind()).isEqualTo(StoreException.Kind.FULL);
        assertThat(rocks.healthy()).isFalse();
        assertThat(rocks.fullFaults()).isPositive();
        assertThat(rocks.probe()).isFalse();
        // Reads go on while writes are refused.
        assertThat(rocks.scan(Cursor.START, 5)).hasSize(5);

        rocks.setMaxSpaceBytes(0);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(rocks::probe);
        assertThat(rocks.healthy()).isTrue();
        StoredRecord after = value("after", "space returned", T0 + 1_000);
        rocks.write(after);
        assertThat(rocks.read(after.key(), after.valueHash())).contains(after);
        assertThat(written.get()).isPositive();
    }

    /**
     * A store that filled with records that have all expired since: its purges were refused (deleting writes too) and
     * it stayed full for ever; now it lifts RocksDB's limit for the purges and the compaction after them.
     */
    @Test
    void aFullStoreWhoseRecordsExpireFreesTheirSpaceAndTakesWritesAgain() throws Exception {
        ((RocksDbStore) store).close();
        long limit = 256 << 10;
        RocksDbStore rocks = RocksDbStore.open(dir.resolve("expiring"), storeClock::epochMillis,
                new RocksDbStore.Settings(false, limit), Runnable::run);
        opened.add(rocks);
        AtomicInteger written = new AtomicInteger();
        StoreException refused = fillUntilRefused(rocks, T0 + 10_000, written);
        assertThat(refused).isNotNull();
        assertThat(refused.kind()).isEqualTo(StoreException.Kind.FULL);
        assertThat(written.get()).isPositive();

        storeClock.setEpochMillis(T0 + 60_000);
        // The node purges every 10 s; here as often as the wait polls, each purge allowed to fail while RocksDB resumes.
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try {
                rocks.purgeExpired(100_000);
            } catch (StoreException e) {
                return false;
            }
            return rocks.probe();
        });
        assertThat(rocks.size()).isZero();
        assertThat(rocks.sstBytes()).isLessThan(limit);
        StoredRecord after = value("after", "space freed by expiry", T0 + 120_000);
        rocks.write(after);
        assertThat(rocks.read(after.key(), after.valueHash())).contains(after);
    }

    /**
     * Writes 900-byte records expiring at {@code expiresAtMillis}, on a thread of their own, until one is refused;
     * the refusal, or null after 200,000. A write that has not returned in 60 s fails the test rather than hang it.
     */
    private StoreException fillUntilRefused(RocksDbStore rocks, long expiresAtMillis, AtomicInteger written)
            throws Exception {
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "filler");
            t.setDaemon(true);
            return t;
        });
        try {
            // The limit bites when a memtable flush makes an SST file beyond it; RocksDB then refuses writes.
            return writer.submit(() -> {
                for (int i = 0; i < 200_000; i++) {
                    byte[] bytes = new byte[900];
                    java.nio.ByteBuffer.wrap(bytes).putInt(i);
                    try {
                        rocks.write(StoredRecord.value(Id.ofName("k" + i), Bytes.of(bytes), expiresAtMillis,
                                Bytes.EMPTY));
                    } catch (StoreException e) {
                        return e;
                    }
                    written.incrementAndGet();
                }
                return (StoreException) null;
            }).get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            // Closing RocksDB under a write blocked in it would wait on it too: the store is left to the process.
            opened.remove(rocks);
            throw new AssertionError("a write to the filling store has not returned in 60 s (" + written.get()
                    + " written)", e);
        } finally {
            writer.shutdown();
        }
    }

    @Test
    void aStoreOfAnUnknownFormatVersionIsRefusedWithAClearError() throws RocksDBException {
        ((RocksDbStore) store).close();
        List<ColumnFamilyDescriptor> descriptors = descriptors();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, handles)) {
            assertThat(db.get(StoreFormat.KEY)).as("written at create").containsExactly(0, 0, 0, StoreFormat.CURRENT);
            StoreFormat.write(db, StoreFormat.CURRENT + 1);
            handles.forEach(ColumnFamilyHandle::close);
        }
        assertThatThrownBy(this::open).isInstanceOf(StoreException.class)
                .hasMessageContaining("on-disk format version " + (StoreFormat.CURRENT + 1))
                .hasMessageContaining("cannot read");
    }

    /**
     * A store of format 1 (version 5 of the protocol: SHA-256 of the secret with values and tombstones) is migrated to
     * format 2 when opened: the values keep their bytes and expiry but lose their secret hash (no binding can be made
     * from it, so they can no longer be removed), the tombstones become tombstones without a secret.
     */
    @Test
    void aStoreOfFormat1IsMigratedOnOpen() throws RocksDBException {
        ((RocksDbStore) store).close();
        Bytes oldHash = Bytes.utf8("secret").sha256();
        StoredRecord removable = value("removable", "v1", T0 + 5_000);
        StoredRecord open = value("open", "v2", T0 + 6_000);
        StoredRecord removed = StoredRecord.tombstone(Id.ofName("removed"), Bytes.utf8("v3").sha256(), T0 + 7_000,
                Bytes.EMPTY);
        List<ColumnFamilyDescriptor> descriptors = descriptors();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, handles)) {
            StoreFormat.write(db, 1);
            putVersion1(db, handles, removable, oldHash);
            putVersion1(db, handles, open, Bytes.EMPTY);
            putVersion1(db, handles, removed, oldHash);
            // A record that is not of format 1 is left alone (and skipped as corrupt).
            db.put(handles.get(1), RecordFormat.dataKey(Id.ofName("junk"), oldHash), new byte[] {9, 9});
            handles.forEach(ColumnFamilyHandle::close);
        }

        RocksDbStore rocks = open();

        assertThat(rocks.read(removable.key(), removable.valueHash())).as("no binding can be made from the old hash")
                .contains(value("removable", "v1", T0 + 5_000));
        assertThat(rocks.read(open.key(), open.valueHash())).contains(open);
        assertThat(rocks.read(removed.key(), removed.valueHash())).as("a tombstone without a secret")
                .contains(removed);
        assertThat(rocks.read(Id.ofName("junk"), oldHash)).isEmpty();
        assertThat(rocks.expiryIndexSize()).isEqualTo(3);
        clock.advanceMillis(10_000);
        assertThat(rocks.purgeExpired(100)).as("the expiry index still finds them").isEqualTo(3);

        RocksDbStore reopened = (RocksDbStore) reopen(rocks);
        assertThat(reopened.size()).isEqualTo(1);
        assertThat(StoreFormat.recordFromVersion1(RecordFormat.encode(open, open.slot())))
                .as("rerun: a later format is left alone")
                .isNull();
    }

    /** A store of format 2 (no owned records) opens as the current format with every record as it was. */
    @Test
    void aStoreOfFormat2IsMigratedOnOpen() throws RocksDBException {
        StoredRecord kept = value("kept", "v", T0 + 5_000);
        store.write(kept);
        ((RocksDbStore) store).close();
        List<ColumnFamilyDescriptor> descriptors = descriptors();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, handles)) {
            StoreFormat.write(db, 2);
            handles.forEach(ColumnFamilyHandle::close);
        }
        RocksDbStore rocks = open();
        assertThat(rocks.read(kept.key(), kept.valueHash())).contains(kept);
        rocks.close();
        List<ColumnFamilyHandle> again = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, again)) {
            assertThat(db.get(StoreFormat.KEY)).containsExactly(0, 0, 0, StoreFormat.CURRENT);
            again.forEach(ColumnFamilyHandle::close);
        }
    }

    private static void putVersion1(RocksDB db, List<ColumnFamilyHandle> handles, StoredRecord r, Bytes secretHash)
            throws RocksDBException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1 + 1 + 8 + 1 + secretHash.length() + r.value().length());
        b.put((byte) 1).put((byte) (r.tombstone() ? 1 : 0)).putLong(r.expiresAtMillis())
                .put((byte) secretHash.length()).put(secretHash.toByteArray()).put(r.value().toByteArray());
        byte[] dataKey = RecordFormat.dataKey(r.key(), r.valueHash());
        db.put(handles.get(1), dataKey, b.array());
        db.put(handles.get(2), RecordFormat.expiryKey(r.expiresAtMillis(), dataKey), new byte[0]);
    }

    @Test
    void withFsyncConcurrentWritesShareSyncsAndNoneIsAcknowledgedBeforeItsSync() throws Exception {
        ((RocksDbStore) store).close();
        ExecutorService loop = Executors.newSingleThreadExecutor();
        try {
            RocksDbStore rocks = RocksDbStore.open(dir.resolve("fsync"), storeClock::epochMillis,
                    new RocksDbStore.Settings(true, 0), loop);
            opened.add(rocks);
            int writes = 2_000;
            AtomicInteger early = new AtomicInteger();
            CountDownLatch acked = new CountDownLatch(writes);
            // As the node does: every write and its "when durable" are made on the loop, many before a sync returns.
            for (int i = 0; i < writes; i++) {
                int n = i;
                loop.execute(() -> {
                    rocks.write(value("k" + n, "v", T0 + 1_000_000));
                    long syncsBefore = rocks.syncsCompleted();
                    rocks.whenDurable(() -> {
                        if (rocks.syncsCompleted() <= syncsBefore) {
                            early.incrementAndGet();
                        }
                        acked.countDown();
                    });
                });
            }
            assertThat(acked.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(early.get()).as("acknowledgements before their sync returned").isZero();
            assertThat(rocks.walSyncs()).as("WAL syncs (RocksDB's ticker)").isPositive().isLessThan(writes);
        } finally {
            loop.shutdown();
        }
    }

    @Test
    void closingTwiceIsHarmlessAndUseAfterCloseFails() {
        RocksDbStore rocks = (RocksDbStore) store;
        rocks.close();
        rocks.close();
        assertThatThrownBy(() -> rocks.read(Id.ZERO, Bytes.EMPTY)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(rocks::size).isInstanceOf(IllegalStateException.class);
    }

    /** The store's column families, to open its database directly (the store must be closed). */
    static List<ColumnFamilyDescriptor> descriptors() {
        return List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(RocksDbHandles.VALUES_CF.getBytes(StandardCharsets.UTF_8)),
                new ColumnFamilyDescriptor(RocksDbHandles.EXPIRY_CF.getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes bytes straight into the values column family, as a damaged disk might. The store must be closed. */
    private void putRaw(byte[] key, byte[] bytes) throws RocksDBException {
        List<ColumnFamilyDescriptor> descriptors = descriptors();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, handles)) {
            db.put(handles.get(1), key, bytes);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }
}
