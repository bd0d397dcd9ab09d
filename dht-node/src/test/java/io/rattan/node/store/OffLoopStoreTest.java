package io.rattan.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OffLoopStore} over a real RocksDB store: work runs on the store's thread in the order submitted, completions
 * come back on the loop in that order, and a full queue refuses at once with a typed fault instead of growing.
 */
class OffLoopStoreTest {

    private static final long FAR_FUTURE = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(7);

    @TempDir
    Path dir;

    private RocksDbStore rocks;
    private ExecutorService loop;
    private Thread loopThread;

    @BeforeEach
    void open() throws Exception {
        rocks = RocksDbStore.open(dir.resolve("db"), System::currentTimeMillis);
        loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-loop"));
        loopThread = loop.submit(Thread::currentThread).get();
    }

    @AfterEach
    void close() {
        loop.shutdownNow();
        rocks.close();
    }

    private static StoredRecord record(int i) {
        return StoredRecord.value(Id.ofName("k" + i), Bytes.utf8("v" + i), FAR_FUTURE, Bytes.EMPTY);
    }

    @Test
    void workRunsOnTheStoreThreadInOrderAndCompletesOnTheLoopInOrder() throws Exception {
        OffLoopStore store = new OffLoopStore(rocks, loop, 64, "t");
        int writes = 50;
        List<String> workThreads = Collections.synchronizedList(new ArrayList<>());
        List<Integer> completions = Collections.synchronizedList(new ArrayList<>());
        List<Thread> completionThreads = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<List<StoredRecord>> scanned = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        loop.execute(() -> {
            for (int i = 0; i < writes; i++) {
                int n = i;
                store.submit(() -> {
                    workThreads.add(Thread.currentThread().getName());
                    store.write(record(n));
                    return n;
                }, (result, failure) -> {
                    completions.add(result);
                    completionThreads.add(Thread.currentThread());
                });
            }
            // Submitted after the writes, so it runs after them and sees them all.
            store.submit(() -> store.scan(Store.Cursor.START, 1000), (page, failure) -> {
                scanned.set(page);
                done.countDown();
            });
        });
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(workThreads).hasSize(writes).allMatch(name -> name.equals("rattan-store-t"));
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
            expected.add(i);
        }
        assertThat(completions).as("completions in submission order").isEqualTo(expected);
        assertThat(completionThreads).as("every completion on the loop").allMatch(t -> t == loopThread);
        assertThat(scanned.get()).hasSize(writes);
        assertThat(store.completed()).isEqualTo(writes + 1);
        assertThat(store.closeAndWait()).isTrue();
    }

    @Test
    void aFailureReachesTheCompletionAsItsResult() throws Exception {
        OffLoopStore store = new OffLoopStore(rocks, loop, 4, "t");
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<RuntimeException> seen = new AtomicReference<>();
        store.submit(() -> {
            throw new StoreException(StoreException.Kind.FULL, "no space", null);
        }, (result, failure) -> {
            seen.set(failure);
            done.countDown();
        });
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).isInstanceOf(StoreException.class).hasMessage("no space");
        assertThat(store.closeAndWait()).isTrue();
    }

    @Test
    void aFullQueueRefusesAtOnceWithAnIoFaultAndTheQueuedWorkStillRuns() throws Exception {
        int queueMax = 3;
        OffLoopStore store = new OffLoopStore(rocks, loop, queueMax, "t");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        store.submit(() -> {
            running.countDown();
            try {
                return release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, (result, failure) -> { });
        assertThat(running.await(60, TimeUnit.SECONDS)).isTrue();
        CountDownLatch queuedDone = new CountDownLatch(queueMax);
        for (int i = 0; i < queueMax; i++) {
            int n = i;
            store.submit(() -> {
                store.write(record(n));
                return n;
            }, (result, failure) -> queuedDone.countDown());
        }
        assertThat(store.queued()).isEqualTo(queueMax);
        AtomicReference<RuntimeException> refusal = new AtomicReference<>();
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> refusedOn = new AtomicReference<>();
        store.submit(() -> {
            throw new AssertionError("a refused task must not run");
        }, (result, failure) -> {
            refusal.set(failure);
            refusedOn.set(Thread.currentThread());
        });
        assertThat(refusal.get()).as("refused at once").isInstanceOf(StoreException.class)
                .hasMessageContaining("store busy");
        assertThat(((StoreException) refusal.get()).kind()).isEqualTo(StoreException.Kind.IO);
        assertThat(refusedOn.get()).as("answered on the caller's thread").isSameAs(caller);
        assertThat(store.refused()).isEqualTo(1);

        release.countDown();
        assertThat(queuedDone.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(rocks.size()).isEqualTo(queueMax);
        assertThat(store.closeAndWait()).isTrue();
    }

    @Test
    void afterCloseSubmissionsAreRefusedAndTheWrappedStoreIsUntouched() throws Exception {
        OffLoopStore store = new OffLoopStore(rocks, loop, 4, "t");
        assertThat(store.closeAndWait()).isTrue();
        AtomicReference<RuntimeException> refusal = new AtomicReference<>();
        store.submit(() -> {
            throw new AssertionError("must not run after close");
        }, (result, failure) -> refusal.set(failure));
        assertThat(refusal.get()).isInstanceOf(StoreException.class).hasMessageContaining("closed");
        Future<Long> size = loop.submit(rocks::size);
        assertThat(size.get(60, TimeUnit.SECONDS)).isZero();
    }
}
