package io.rattan.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.core.id.Id;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.Store;
import io.rattan.core.store.Store.Cursor;
import io.rattan.core.store.StoreContractTest;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
    void undecodableRecordIsReportedAndCanBeOverwritten() throws RocksDBException {
        StoredRecord good = value("good", "v", T0 + 1_000);
        StoredRecord victim = value("victim", "v", T0 + 1_000);
        store.write(good);
        ((RocksDbStore) store).close();
        putRaw(RocksDbStore.dataKey(victim.key(), victim.valueHash()), new byte[] {9, 9, 9});

        RocksDbStore rocks = open();
        assertThat(rocks.size()).isEqualTo(2);
        assertThatThrownBy(() -> rocks.read(victim.key(), victim.valueHash())).isInstanceOf(StoreException.class);
        assertThatThrownBy(() -> rocks.scan(Cursor.START, 10)).isInstanceOf(StoreException.class);
        assertThat(rocks.read(good.key(), good.valueHash())).contains(good);

        rocks.write(victim);
        assertThat(rocks.read(victim.key(), victim.valueHash())).contains(victim);
        assertThat(rocks.scan(Cursor.START, 10)).hasSize(2);
        assertThat(rocks.size()).isEqualTo(2);
    }

    @Test
    void closingTwiceIsHarmlessAndUseAfterCloseFails() {
        RocksDbStore rocks = (RocksDbStore) store;
        rocks.close();
        rocks.close();
        assertThatThrownBy(() -> rocks.read(Id.ZERO, Bytes.EMPTY)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(rocks::size).isInstanceOf(IllegalStateException.class);
    }

    /** Writes bytes straight into the values column family, as a damaged disk might. The store must be closed. */
    private void putRaw(byte[] key, byte[] bytes) throws RocksDBException {
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(RocksDbStore.VALUES_CF.getBytes(StandardCharsets.UTF_8)),
                new ColumnFamilyDescriptor(RocksDbStore.EXPIRY_CF.getBytes(StandardCharsets.UTF_8)));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.resolve("db").toString(), descriptors, handles)) {
            db.put(handles.get(1), key, bytes);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }
}
