package io.rattan.core.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The virtual disk's {@code --fsync}: durable actions wait for a sync that covers their writes, shared by a group. */
class SyncingStoreTest {

    private static final long MS = 1_000_000L;
    private final VirtualScheduler scheduler = new VirtualScheduler(1_800_000_000_000L);
    private final FaultyStore disk = new FaultyStore(new MemoryStore(scheduler::epochMillis), scheduler, 1_000 * MS);
    private final SyncingStore store = new SyncingStore(disk, scheduler);
    private final List<String> ran = new ArrayList<>();
    private final Id key = Id.random(new java.util.SplittableRandom(7));

    private StoredRecord write(String value) {
        StoredRecord r = StoredRecord.value(key, Bytes.utf8(value), scheduler.epochMillis() + 60_000, Bytes.EMPTY);
        store.write(r);
        return r;
    }

    private boolean survivesPowerLoss(StoredRecord r) {
        return disk.durableRead(r.key(), r.slot()).isPresent();
    }

    @Test
    void anActionRunsOnlyOnceASyncCoveringItsWriteReturned() {
        scheduler.runFor(100 * MS);
        StoredRecord r = write("a");
        store.whenDurable(() -> ran.add("a"));
        assertThat(ran).isEmpty();
        assertThat(survivesPowerLoss(r)).isFalse();
        scheduler.runFor(SyncingStore.SYNC_NANOS);
        assertThat(ran).containsExactly("a");
        assertThat(survivesPowerLoss(r)).isTrue();
        assertThat(disk.afterPowerLoss(scheduler::epochMillis).read(key, r.slot())).isPresent();
    }

    @Test
    void actionsQueuedDuringASyncShareTheNextOne() {
        scheduler.runFor(100 * MS);
        StoredRecord first = write("first");
        store.whenDurable(() -> ran.add("first"));
        scheduler.runFor(MS);
        StoredRecord second = write("second");
        store.whenDurable(() -> ran.add("second"));
        StoredRecord third = write("third");
        store.whenDurable(() -> ran.add("third"));
        scheduler.runFor(MS);
        assertThat(ran).containsExactly("first");
        assertThat(survivesPowerLoss(first)).isTrue();
        assertThat(survivesPowerLoss(second)).isFalse();
        scheduler.runFor(SyncingStore.SYNC_NANOS);
        assertThat(ran).containsExactly("first", "second", "third");
        assertThat(survivesPowerLoss(third)).isTrue();
    }

    @Test
    void aStoppedSyncerRunsNothingAndAPowerLossTakesWhatItHadNotSynced() {
        scheduler.runFor(100 * MS);
        StoredRecord r = write("lost");
        store.whenDurable(() -> ran.add("lost"));
        store.stop();
        scheduler.runFor(10 * MS);
        assertThat(ran).isEmpty();
        assertThat(disk.afterPowerLoss(scheduler::epochMillis).read(key, r.slot())).isEmpty();
    }
}
