package io.rattan.core.virtual;

import io.rattan.core.env.Scheduler;
import io.rattan.core.store.ForwardingStore;
import java.util.ArrayList;
import java.util.List;

/**
 * A virtual node's store with {@code --fsync}: what the real node's {@code WalSyncer} does, in virtual time. An action
 * waiting for durability ({@link #whenDurable}) runs only after a sync that began after it was queued has returned
 * ({@link #SYNC_NANOS} later); actions queued while a sync runs share the next one (group commit). A sync covers every
 * write made before it began, so a power loss after it keeps them. One per boot: a crash stops it, and what still
 * waits never runs, as a real process's acknowledgements die with it. Single-threaded, like the world.
 */
final class SyncingStore extends ForwardingStore {

    /** How long one sync takes: an SSD's fdatasync, in the order of milliseconds. */
    static final long SYNC_NANOS = 2_000_000L;

    private final FaultyStore disk;
    private final Scheduler loop;
    private List<Runnable> waiting = new ArrayList<>();
    private boolean syncing;
    private boolean stopped;

    SyncingStore(FaultyStore disk, Scheduler loop) {
        super(disk);
        this.disk = disk;
        this.loop = loop;
    }

    @Override
    public void whenDurable(Runnable action) {
        if (stopped) {
            return;
        }
        waiting.add(action);
        if (!syncing) {
            startSync();
        }
    }

    private void startSync() {
        syncing = true;
        List<Runnable> batch = waiting;
        waiting = new ArrayList<>();
        long through = disk.writesSoFar();
        loop.schedule(SYNC_NANOS, () -> {
            if (stopped) {
                return;
            }
            disk.syncThrough(through);
            syncing = false;
            batch.forEach(Runnable::run);
            if (!waiting.isEmpty() && !syncing) {
                startSync();
            }
        });
    }

    /** The process died: no sync returns to it, and nothing waiting runs. */
    void stop() {
        stopped = true;
        waiting.clear();
    }
}
