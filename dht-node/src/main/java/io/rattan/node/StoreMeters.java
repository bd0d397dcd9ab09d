package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of the node's store: its faults ({@code rattan.store.faults}, {@code rattan.store.corrupt.records},
 * {@code rattan.store.faulted}), its WAL syncs, its store thread ({@code rattan.store.queue.tasks},
 * {@code rattan.store.busy}) and the waits for durability that gave up ({@code rattan.store.durable.gaveup}).
 * Thread-safe.
 */
final class StoreMeters {

    private final MeterRegistry registry;
    private final Counter durableGaveUpPut;
    private final Counter durableGaveUpCopies;
    private final AtomicLong sstBytes = new AtomicLong();

    StoreMeters(MeterRegistry registry) {
        this.registry = registry;
        this.durableGaveUpPut = durableGaveUpCounter("put");
        this.durableGaveUpCopies = durableGaveUpCounter("copies");
        Gauge.builder("rattan.store.sst.bytes", sstBytes, AtomicLong::doubleValue)
                .description("The store's SST files on disk, in bytes, every column family's (what --store-max-bytes "
                        + "limits; the write-ahead log and memtables not counted)")
                .register(registry);
    }

    /** Sampled on the node's loop while the store is open: reading a closed store's property would fault. */
    void sstBytes(long bytes) {
        sstBytes.set(bytes);
    }

    /**
     * Exports the store's fault counters: writes refused for full storage, I/O failures, corrupt records skipped,
     * WAL syncs, writes stalled, and whether the store is faulted now (1) or healthy (0).
     */
    void bindStore(RocksDbStore store) {
        FunctionCounter.builder("rattan.store.faults", store, RocksDbStore::fullFaults)
                .description("Store operations that failed, by kind (full: no space; io: any other I/O error)")
                .tag("kind", "full").register(registry);
        FunctionCounter.builder("rattan.store.faults", store, RocksDbStore::ioFaults)
                .description("Store operations that failed, by kind (full: no space; io: any other I/O error)")
                .tag("kind", "io").register(registry);
        FunctionCounter.builder("rattan.store.corrupt.records", store, RocksDbStore::corruptRecords)
                .description("Undecodable records skipped by reads and scans (each counted once)")
                .register(registry);
        FunctionCounter.builder("rattan.store.wal.syncs", store, RocksDbStore::walSyncs)
                .description("Write-ahead log syncs (RocksDB's WAL_FILE_SYNCED ticker)")
                .register(registry);
        FunctionCounter.builder("rattan.store.write.stalls", store, RocksDbStore::writeStalls)
                .description("Writes that met a RocksDB write stall (memtables waiting for a flush); where space "
                        + "is short one is waited out for at most 2 s, then fails as full")
                .register(registry);
        Gauge.builder("rattan.store.faulted", store, s -> s.fault() == null ? 0 : 1)
                .description("1 while the store is in a storage fault (the node is then not ready)")
                .register(registry);
    }

    /** The store thread's meters: tasks waiting for it, and those refused because too many waited. */
    void bindStoreThread(OffLoopStore store) {
        Gauge.builder("rattan.store.queue.tasks", store, OffLoopStore::queued)
                .description("Store tasks (writes, scans, repair reads, purges) waiting for the store thread")
                .register(registry);
        FunctionCounter.builder("rattan.store.busy", store, OffLoopStore::refused)
                .description("Store tasks refused because the store thread's queue was full (answered as I/O errors)")
                .register(registry);
    }

    private Counter durableGaveUpCounter(String wait) {
        return Counter.builder("rattan.store.durable.gaveup")
                .description("Waits for a sync to make writes durable that gave up after half the request timeout "
                        + "(the disk did not return), answered as an I/O fault; wait: the root's own copy of a put, "
                        + "or copies a peer sent")
                .tag("wait", wait)
                .register(registry);
    }

    void durableWaitGaveUp(boolean ownCopy) {
        (ownCopy ? durableGaveUpPut : durableGaveUpCopies).increment();
    }

}
