package io.rattan.bench.jmh;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.store.RocksDbNativeLibrary;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * The stores beside raw RocksJava: {@code rocks} is {@link RocksDbStore}, {@code raw} the same operation done straight
 * on a RocksDB opened with the same options (8 MiB LRU block cache, a values column family, default write options),
 * {@code memory} is {@link MemoryStore}. Keys hold {@value #VALUES_PER_KEY} values of 1 KiB; the database starts with
 * {@value #KEYS} keys. Report the ratio rocks/raw of throughput (the inverse of the times here). The
 * {@code ...WithSecret} benchmarks read {@value #BOUND_KEYS} further keys whose values were put with a secret (each
 * holds its binding and is named by a slot that commits to it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreBenchmark {

    static final int KEYS = 20_000;
    static final int VALUES_PER_KEY = 4;
    static final int BOUND_KEYS = 5_000;

    @Param({"rocks", "raw", "memory"})
    public String store;

    private Path dir;
    private Store target;
    private RawRocks raw;
    private final List<StoredRecord> records = new ArrayList<>();
    private final List<StoredRecord> boundRecords = new ArrayList<>();
    /** Their slots, computed once: the benchmark times the store, not the caller's hashing. */
    private final List<Bytes> boundSlots = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(3);
    private int next;
    private long written;

    @Setup(Level.Trial)
    public void setUp() throws IOException, RocksDBException {
        dir = Files.createTempDirectory("rattan-jmh-store");
        long farFuture = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(7);
        for (int k = 0; k < KEYS; k++) {
            Id key = Id.random(random);
            for (int v = 0; v < VALUES_PER_KEY; v++) {
                records.add(StoredRecord.value(key, value(), farFuture, Bytes.EMPTY));
            }
        }
        for (int k = 0; k < BOUND_KEYS; k++) {
            Id key = Id.random(random);
            for (int v = 0; v < VALUES_PER_KEY; v++) {
                Bytes value = value();
                byte[] secret = new byte[16];
                random.nextBytes(secret);
                boundRecords.add(StoredRecord.value(key, value, farFuture, SecretBinding.ofValue(secret, key, value)));
            }
        }
        switch (store) {
            case "rocks" -> target = RocksDbStore.open(dir, System::currentTimeMillis);
            case "memory" -> target = new MemoryStore(System::currentTimeMillis);
            case "raw" -> raw = new RawRocks(dir);
            default -> throw new IllegalArgumentException(store);
        }
        for (StoredRecord r : records) {
            write(r);
        }
        for (StoredRecord r : boundRecords) {
            write(r);
            boundSlots.add(r.slot());
        }
    }

    private Bytes value() {
        byte[] b = new byte[1024];
        random.nextBytes(b);
        return Bytes.wrap(b);
    }

    private void write(StoredRecord r) throws RocksDBException {
        if (raw != null) {
            raw.put(r);
        } else {
            target.write(r);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (target instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        if (raw != null) {
            raw.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private StoredRecord nextRecord() {
        return records.get(Math.floorMod(next++ * 7919, records.size()));
    }

    private int nextBound() {
        return Math.floorMod(next++ * 7919, boundRecords.size());
    }

    /** A new 1 KiB value under a new key. */
    @Benchmark
    public long put() throws RocksDBException {
        long farFuture = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(7);
        byte[] b = new byte[1024];
        random.nextBytes(b);
        write(StoredRecord.value(Id.random(random), Bytes.wrap(b), farFuture, Bytes.EMPTY));
        return ++written;
    }

    /** One value by key and hash. */
    @Benchmark
    public Object get() throws RocksDBException {
        StoredRecord r = nextRecord();
        return read(r, r.valueHash());
    }

    /** Every value of one key, as a get's page reads them. */
    @Benchmark
    public int multiValueGet() {
        return readKey(nextRecord());
    }

    /** One value put with a secret, by key and slot. */
    @Benchmark
    public Object getWithSecret() throws RocksDBException {
        int i = nextBound();
        return read(boundRecords.get(i), boundSlots.get(i));
    }

    /** Every value of one key whose values were put with secrets. */
    @Benchmark
    public int multiValueGetWithSecret() {
        return readKey(boundRecords.get(nextBound()));
    }

    private Object read(StoredRecord r, Bytes slot) throws RocksDBException {
        return raw != null ? raw.get(r) : target.read(r.key(), slot);
    }

    private int readKey(StoredRecord r) {
        if (raw != null) {
            return raw.scanKey(r.key());
        }
        return target.scanKey(Store.Cursor.atKey(r.key()), VALUES_PER_KEY + 1).size();
    }

    /** RocksJava with RocksDbStore's options and key layout, and nothing else. */
    static final class RawRocks implements AutoCloseable {
        static {
            RocksDbNativeLibrary.load();
        }

        private final LRUCache cache = new LRUCache(8L << 20);
        private final ColumnFamilyOptions cfOptions = new ColumnFamilyOptions()
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        private final DBOptions dbOptions = new DBOptions().setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true);
        private final WriteOptions writeOptions = new WriteOptions();
        private final List<ColumnFamilyHandle> handles = new ArrayList<>();
        private final RocksDB db;
        private final ColumnFamilyHandle values;

        RawRocks(Path dir) throws RocksDBException {
            db = RocksDB.open(dbOptions, dir.toString(), List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                    new ColumnFamilyDescriptor("values".getBytes(StandardCharsets.UTF_8), cfOptions)), handles);
            values = handles.get(1);
        }

        static byte[] dataKey(StoredRecord r) {
            byte[] key = new byte[Id.BYTES + StoredRecord.HASH_BYTES];
            r.key().writeTo(key, 0);
            r.valueHash().copyTo(key, Id.BYTES);
            return key;
        }

        void put(StoredRecord r) throws RocksDBException {
            db.put(values, writeOptions, dataKey(r), r.value().toByteArray());
        }

        byte[] get(StoredRecord r) throws RocksDBException {
            return db.get(values, dataKey(r));
        }

        int scanKey(Id key) {
            byte[] prefix = new byte[Id.BYTES];
            key.writeTo(prefix, 0);
            int n = 0;
            try (RocksIterator it = db.newIterator(values)) {
                for (it.seek(prefix); it.isValid() && n <= VALUES_PER_KEY; it.next()) {
                    byte[] k = it.key();
                    if (!java.util.Arrays.equals(k, 0, Id.BYTES, prefix, 0, Id.BYTES)) {
                        break;
                    }
                    it.value();
                    n++;
                }
            }
            return n;
        }

        @Override
        public void close() {
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            writeOptions.close();
            dbOptions.close();
            cfOptions.close();
            cache.close();
        }
    }
}
