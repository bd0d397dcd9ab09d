package io.rattan.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's loader: records ingested from SST files are what {@link RocksDbStore} reads, counts and purges. */
class SstLoaderTest {

    @TempDir
    Path dir;

    @Test
    void ingestedRecordsAreReadCountedScannedAndPurgedLikeWrittenOnes() throws Exception {
        long n = 5_000;
        long expiresAt = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(1);
        SstLoader.load(dir.resolve("store"), n, 100, expiresAt);
        long[] now = {System.currentTimeMillis()};
        try (RocksDbStore store = RocksDbStore.open(dir.resolve("store"), () -> now[0])) {
            assertThat(store.size()).isEqualTo(n);
            StoredRecord r = store.read(SstLoader.keyOf(1234, n), SstLoader.valueOf(1234, 100).sha256()).orElseThrow();
            assertThat(r.value()).isEqualTo(SstLoader.valueOf(1234, 100));
            assertThat(r.expiresAtMillis()).isEqualTo(expiresAt);
            List<StoredRecord> page = store.scan(Store.Cursor.START, 10);
            assertThat(page).hasSize(10);
            assertThat(page.get(0).key()).isEqualTo(SstLoader.keyOf(0, n));
            assertThat(store.expiryIndexSize()).isEqualTo(n);
            now[0] = expiresAt + 1;
            assertThat(store.purgeExpired((int) n)).isEqualTo((int) n);
            assertThat(store.size()).isZero();
        }
    }
}
