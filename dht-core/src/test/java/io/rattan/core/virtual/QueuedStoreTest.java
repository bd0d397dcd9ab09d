package io.rattan.core.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.store.MemoryStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueuedStoreTest {

    private static final long MS = 1_000_000L;

    @Test
    void runsOneTaskAtATimeAndRefusesWorkAtOnceWhenItsQueueIsFull() {
        VirtualScheduler scheduler = new VirtualScheduler(1_700_000_000_000L);
        QueuedStore store = new QueuedStore(new MemoryStore(scheduler::epochMillis), scheduler, scheduler, 2 * MS, 2);
        long start = scheduler.nanoTime();
        List<String> done = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int n = i;
            store.submit(() -> n, (r, failure) -> done.add(failure == null
                    ? r + "@" + (scheduler.nanoTime() - start) / MS + "ms"
                    : failure.getClass().getSimpleName() + ": " + failure.getMessage()));
        }
        assertThat(done).as("the fourth finds one running and two waiting, and is refused within the call")
                .containsExactly("StoreException: store busy: 2 tasks queued");

        scheduler.runFor(10 * MS);
        assertThat(done).containsExactly("StoreException: store busy: 2 tasks queued", "0@2ms", "1@4ms", "2@6ms");

        store.submit(() -> 9, (r, failure) -> done.add(r + "@" + (scheduler.nanoTime() - start) / MS + "ms"));
        scheduler.runFor(10 * MS);
        assertThat(done).as("an idle store starts the next task at once").endsWith("9@12ms");
    }
}
