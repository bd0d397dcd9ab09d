package io.rattan.node.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.StoredRecord;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;

/**
 * Fills a node's store with many records at once by SST ingestion, not puts, for the measurements that need a node
 * holding millions (RocksDB's {@link SstFileWriter} writes sorted files that {@code ingestExternalFile} links into
 * the column families). The records are those {@link RocksDbStore} would hold: {@code n} keys spread evenly over the
 * ring, one value each of {@code valueBytes} bytes, all expiring at {@code expiresAtMillis}; the expiry index has
 * their entries.
 */
public final class SstLoader {

    private SstLoader() {
    }

    /** The key of record {@code i} of {@code n}: {@code i / n} of the way round the ring, so keys come in order. */
    public static Id keyOf(long i, long n) {
        long hi = BigInteger.valueOf(i).shiftLeft(64).divide(BigInteger.valueOf(n)).longValue();
        return new Id(hi, 0, 0);
    }

    /** The value of record {@code i}: its index, then filler. */
    public static Bytes valueOf(long i, int valueBytes) {
        byte[] v = new byte[Math.max(Long.BYTES, valueBytes)];
        ByteBuffer.wrap(v).putLong(i);
        for (int j = Long.BYTES; j < v.length; j++) {
            v[j] = (byte) ('a' + (i + j) % 26);
        }
        return Bytes.wrap(v);
    }

    /**
     * Creates the store in {@code storeDir} (which must not hold one) and ingests {@code n} records into it. Returns
     * the bytes of the two SST files written.
     */
    public static long load(Path storeDir, long n, int valueBytes, long expiresAtMillis)
            throws IOException, RocksDBException {
        // The store's column families and format marker, as a node creates them.
        RocksDbStore.open(storeDir, () -> expiresAtMillis - 1).close();
        Path work = Files.createTempDirectory(storeDir.getParent(), "sst");
        String valuesFile = work.resolve("values.sst").toString();
        String expiryFile = work.resolve("expiry.sst").toString();
        byte[] empty = new byte[0];
        try (EnvOptions env = new EnvOptions(); Options options = new Options();
             SstFileWriter values = new SstFileWriter(env, options);
             SstFileWriter expiry = new SstFileWriter(env, options)) {
            values.open(valuesFile);
            expiry.open(expiryFile);
            for (long i = 0; i < n; i++) {
                StoredRecord r = StoredRecord.value(keyOf(i, n), valueOf(i, valueBytes), expiresAtMillis,
                        Bytes.EMPTY);
                // A value without a binding: its slot is its hash.
                byte[] dataKey = RecordFormat.dataKey(r.key(), r.valueHash());
                values.put(dataKey, RecordFormat.encode(r, r.valueHash()));
                // One expiry for all: the index orders by data key after it, so it too is written in order.
                expiry.put(RecordFormat.expiryKey(expiresAtMillis, dataKey), empty);
            }
            values.finish();
            expiry.finish();
        }
        long bytes = Files.size(Path.of(valuesFile)) + Files.size(Path.of(expiryFile));
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(RocksDbHandles.VALUES_CF.getBytes(StandardCharsets.UTF_8)),
                new ColumnFamilyDescriptor(RocksDbHandles.EXPIRY_CF.getBytes(StandardCharsets.UTF_8)));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions dbOptions = new DBOptions();
             RocksDB db = RocksDB.open(dbOptions, storeDir.toString(), descriptors, handles);
             IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
            db.ingestExternalFile(handles.get(1), List.of(valuesFile), ingest);
            db.ingestExternalFile(handles.get(2), List.of(expiryFile), ingest);
            handles.forEach(ColumnFamilyHandle::close);
        }
        Files.deleteIfExists(Path.of(valuesFile));
        Files.deleteIfExists(Path.of(expiryFile));
        Files.deleteIfExists(work);
        return bytes;
    }
}
