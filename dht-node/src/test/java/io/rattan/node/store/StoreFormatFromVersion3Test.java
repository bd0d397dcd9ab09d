package io.rattan.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.StoredRecord;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * A store of format 3 (every record named by its value hash, encoding version 2) opens as format 4: a value with a
 * binding and a tombstone with a secret move to their slot with their expiry entry, every other record stays as it
 * was, and the step can run again over a store it has (partly) migrated.
 */
class StoreFormatFromVersion3Test {

    private static final long T0 = 1_700_000_000_000L;
    private static final Id KEY = Id.ofName("bound");
    private static final Bytes SECRET = Bytes.utf8("secret");

    @TempDir
    Path dir;

    private final ManualTestClock clock = new ManualTestClock(T0);

    private final StoredRecord unbound = StoredRecord.value(Id.ofName("unbound"), Bytes.utf8("open"), T0 + 1_000,
            Bytes.EMPTY);
    private final StoredRecord bound = StoredRecord.value(KEY, Bytes.utf8("v"), T0 + 2_000,
            SecretBinding.of(SECRET, KEY, Bytes.utf8("v").sha256()));
    private final StoredRecord removed = StoredRecord.tombstone(KEY, Bytes.utf8("gone").sha256(), T0 + 3_000, SECRET);
    private final StoredRecord fromFormat1 = StoredRecord.tombstone(Id.ofName("old"), Bytes.utf8("x").sha256(),
            T0 + 4_000, Bytes.EMPTY);
    private final StoredRecord owned = StoredRecord.owned(Id.ofName("owned"), Bytes.utf8("slot").sha256(),
            Bytes.utf8("data"), new OwnerStamp(Bytes.wrap(new byte[32]), 7, 1, (T0 + 5_000) / 1000,
                    Bytes.wrap(new byte[64])), false);
    private final List<StoredRecord> all = List.of(unbound, bound, removed, fromFormat1, owned);

    /**
     * The step runs once by hand before the store opens, as if the process died after its batches were written and
     * before the marker said 4: opening runs it again over the migrated records, which it leaves alone.
     */
    @Test
    void aStoreOfFormat3IsMigratedOnOpenAndTheStepCanRunAgain() throws RocksDBException {
        createFormat3(all);
        raw(StoreFormat::fromVersion3);

        try (RocksDbStore rocks = open()) {
            for (StoredRecord r : all) {
                assertThat(rocks.read(r.key(), r.slot())).as("%s", r).contains(r);
            }
            assertThat(rocks.read(KEY, bound.valueHash())).isEmpty();
            assertThat(rocks.size()).isEqualTo(all.size());
            assertThat(rocks.corruptRecords()).isZero();
        }
        raw((db, handles) -> {
            assertThat(db.get(StoreFormat.KEY)).containsExactly(0, 0, 0, 4);
            List<Bytes> dataKeys = new ArrayList<>();
            List<Bytes> expiryKeys = new ArrayList<>();
            for (StoredRecord r : all) {
                byte[] dataKey = RecordFormat.dataKey(r.key(), r.slot());
                dataKeys.add(Bytes.wrap(dataKey));
                expiryKeys.add(Bytes.wrap(RecordFormat.expiryKey(r.expiresAtMillis(), dataKey)));
            }
            assertThat(keys(db, handles.get(1))).as("the old keys are gone")
                    .containsExactlyInAnyOrderElementsOf(dataKeys);
            assertThat(keys(db, handles.get(2))).containsExactlyInAnyOrderElementsOf(expiryKeys);
            assertThat(db.get(handles.get(1), RecordFormat.dataKey(unbound.key(), unbound.slot()))[0])
                    .as("a record that does not move is not rewritten").isEqualTo((byte) 2);
        });

        try (RocksDbStore rocks = open()) {
            clock.advanceMillis(10_000);
            assertThat(rocks.purgeExpired(100)).isEqualTo(all.size());
            assertThat(rocks.size()).isZero();
            assertThat(rocks.expiryIndexSize()).isZero();
        }
    }

    /** More records than one batch holds all move, each read back by its slot. */
    @Test
    void aLargeStoreMigratesInSeveralBatches() throws RocksDBException {
        List<StoredRecord> many = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            Bytes value = Bytes.utf8("v" + i);
            Id key = Id.ofName("k" + i % 100);
            many.add(StoredRecord.value(key, value, T0 + 1_000 + i, SecretBinding.of(SECRET, key, value.sha256())));
        }
        createFormat3(many);

        try (RocksDbStore rocks = open()) {
            assertThat(rocks.size()).isEqualTo(many.size());
            assertThat(rocks.expiryIndexSize()).isEqualTo(many.size());
            for (StoredRecord r : many) {
                assertThat(rocks.read(r.key(), r.slot())).contains(r);
            }
        }
    }

    private RocksDbStore open() {
        return RocksDbStore.open(dir, clock::epochMillis);
    }

    /** A store of format 3 holding {@code records}, as a node of that format wrote them. */
    private void createFormat3(List<StoredRecord> records) throws RocksDBException {
        // The store's column families, as a node creates them (and RocksDB's native library loaded).
        open().close();
        raw((db, handles) -> {
            StoreFormat.write(db, 3);
            for (StoredRecord r : records) {
                putVersion2(db, handles, r);
            }
        });
    }

    /** Puts {@code r} as a store of format 3 held it: in encoding version 2, under {@code id ‖ valueHash}. */
    private static void putVersion2(RocksDB db, List<ColumnFamilyHandle> handles, StoredRecord r)
            throws RocksDBException {
        OwnerStamp s = r.stamp();
        ByteBuffer b = ByteBuffer.allocate(1 + 1 + 8 + 1 + r.binding().length() + 2 + r.secret().length()
                + (s == null ? 0 : 32 + 3 * 8 + 64) + r.value().length());
        b.put((byte) 2).put((byte) ((r.tombstone() ? 1 : 0) | (s == null ? 0 : 2))).putLong(r.expiresAtMillis())
                .put((byte) r.binding().length()).put(r.binding().toByteArray())
                .putShort((short) r.secret().length()).put(r.secret().toByteArray());
        if (s != null) {
            b.put(s.owner().toByteArray()).putLong(s.valueId()).putLong(s.seq()).putLong(s.expiresAtSeconds())
                    .put(s.signature().toByteArray());
        }
        b.put(r.value().toByteArray());
        byte[] dataKey = RecordFormat.dataKey(r.key(), r.valueHash());
        db.put(handles.get(1), dataKey, b.array());
        db.put(handles.get(2), RecordFormat.expiryKey(r.expiresAtMillis(), dataKey), new byte[0]);
    }

    private interface RawWork {
        void run(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException;
    }

    private static List<Bytes> keys(RocksDB db, ColumnFamilyHandle cf) {
        List<Bytes> keys = new ArrayList<>();
        try (RocksIterator it = db.newIterator(cf)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                keys.add(Bytes.wrap(it.key()));
            }
        }
        return keys;
    }

    /** Runs {@code work} on the store's database opened directly; the store must be closed. */
    private void raw(RawWork work) throws RocksDBException {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB db = RocksDB.open(options, dir.toString(), RocksDbStoreTest.descriptors(), handles)) {
            try {
                work.run(db, handles);
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
    }
}
