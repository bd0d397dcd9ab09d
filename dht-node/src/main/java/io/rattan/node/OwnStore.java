package io.rattan.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A node's own store reached directly, bypassing the overlay: the admin listing ({@code GET /admin/records}) that
 * counts copies from the store itself rather than inferring them from gets, and the tests' reads of one record and
 * their hook that makes the store lose one. It exists so that these direct reads live apart from the node's
 * lifecycle. Every call goes through the loop, so it sees the node stop, and fails once the node is stopped.
 */
final class OwnStore {

    // Records per page of the listing's scan: large enough that a full store takes few scans.
    private static final int LISTING_PAGE = 4096;

    private final LoopGate gate;
    // On the loop: false once the node has stopped.
    private final BooleanSupplier running;
    private final RocksDbStore store;
    private final OffLoopStore offLoopStore;
    // The clock the store judges expiry by; losing a record means expiring it by that clock.
    private final ExpiryClock expiryClock;
    private final Path dataDir;

    OwnStore(LoopGate gate, BooleanSupplier running, RocksDbStore store, OffLoopStore offLoopStore,
             ExpiryClock expiryClock, Path dataDir) {
        this.dataDir = dataDir;
        this.gate = gate;
        this.running = running;
        this.store = store;
        this.offLoopStore = offLoopStore;
        this.expiryClock = expiryClock;
    }

    /** Every live record, in key order (the admin listing), read on the store's thread, off the node's loop. */
    CompletableFuture<List<StoredRecord>> records() {
        return gate.onLoop(running, result -> offLoopStore.submit(() -> allRecords(store), (all, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(all);
            }
        }));
    }

    /**
     * Writes a backup of the node's data directory to {@code target} ({@link NodeBackup}) on the store's thread, so
     * that it runs between the store's other work and never after the store has closed.
     */
    CompletableFuture<Path> backup(Path target) {
        return gate.onLoop(running, result -> offLoopStore.submit(() -> {
            try {
                NodeBackup.take(dataDir, store, target);
                return target;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, (taken, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure instanceof UncheckedIOException u ? u.getCause() : failure);
            } else {
                result.complete(taken);
            }
        }));
    }

    /** The record (value or tombstone) held in {@code slot} under {@code key} ({@link StoredRecord#slot}), on the loop. */
    CompletableFuture<Optional<StoredRecord>> read(Id key, Bytes slot) {
        return gate.onLoop(running, result -> {
            try {
                result.complete(store.read(key, slot));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
    }

    /**
     * Overwrites the record in {@code slot} under {@code key} with a copy that expires a millisecond from now by the
     * store's clock, as a lost write would leave it; completes with whether there was a record to lose.
     */
    CompletableFuture<Boolean> lose(Id key, Bytes slot) {
        return gate.onLoop(running, result -> {
            try {
                Optional<StoredRecord> held = store.read(key, slot);
                held.ifPresent(r -> store.write(new StoredRecord(r.key(), r.valueHash(), r.value(),
                        expiryClock.epochMillis() + 1, r.binding(), r.secret(), r.tombstone(), r.stamp())));
                result.complete(held.isPresent());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
    }

    private static List<StoredRecord> allRecords(Store store) {
        List<StoredRecord> all = new ArrayList<>();
        Store.Cursor cursor = Store.Cursor.START;
        for (List<StoredRecord> page = store.scan(cursor, LISTING_PAGE); !page.isEmpty();
                page = store.scan(cursor, LISTING_PAGE)) {
            all.addAll(page);
            StoredRecord last = page.get(page.size() - 1);
            cursor = new Store.Cursor(last.key(), last.slot());
        }
        return all;
    }
}
