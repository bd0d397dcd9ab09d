package io.rattan.core.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A node's local multi-value, TTL'd store of {@link StoredRecord}s, ordered by {@code (key, slot)}: a record is named
 * by its key and its {@link StoredRecord#slot slot} (its value hash, or for a value with a binding a name that
 * commits to the binding too).
 *
 * <p>Implementations read the current time (epoch milliseconds) from a supplier they are given, and never return an
 * expired record. The node calls the methods below from its event loop, and from work it {@link #submit submits}:
 * point reads and a get's page stay on the loop, while writes, scans, multi-record reads and purges go through
 * {@code submit}, which a store on disk runs on a thread of its own so that they never stall the loop. A store whose
 * {@code submit} runs work on another thread must take those calls from both threads. Storage failures are thrown as
 * {@link StoreException}; a record that cannot be decoded is skipped by reads and scans (as if absent, so replicas
 * repair it), never thrown.
 */
public interface Store {

    /**
     * Inserts the record, replacing whatever is held under the same {@code (key, slot)} (and its expiry entry).
     * A record already expired by the store's clock when written is kept like any other: reads do not return it, and
     * {@link #purgeExpired} removes it; the clock may yet be set back (an expiry clock not confirmed since boot, which
     * its peers correct, and which the node lets judge no copy expired). The store applies no rule between the two:
     * what a replica may hold (tombstones, secrets, expiry) is decided before the write, by the node.
     */
    void write(StoredRecord record);

    /** The live (unexpired) record with this key and slot ({@link StoredRecord#slot}), value or tombstone. */
    Optional<StoredRecord> read(Id key, Bytes slot);

    /**
     * Up to {@code limit} unexpired records (values and tombstones) in {@code (key, slot)} order, starting after
     * {@code from}: records with key &gt; from.key, or key == from.key and slot &gt; from.slotExclusive
     * (an empty slot means "from the first record of that key").
     */
    List<StoredRecord> scan(Cursor from, int limit);

    /**
     * As {@link #scan}, but only records of {@code from.key()}: what a get reads. It stops at the key's last record
     * instead of reading on into the next keys. (No default of scan-then-filter: a wrapper that fell back to one read
     * a page of other keys' records on every get, half a cluster's CPU, until it forwarded this method.)
     */
    List<StoredRecord> scanKey(Cursor from, int limit);

    /** Deletes up to {@code limit} records whose expiry has passed, from the data and the expiry index; returns how many. */
    int purgeExpired(int limit);

    /** Number of records held, expired-but-unpurged included; cheap. */
    long size();

    /**
     * The expiry clock's high-water mark persisted here (epoch milliseconds), or 0 when none: the node's expiry
     * clock never starts below it ({@link io.rattan.core.env.ExpiryClock}).
     */
    default long clockMark() {
        return 0;
    }

    /** Persists the expiry clock's high-water mark; a store that cannot keep one ignores it. */
    default void clockMark(long epochMillis) {
    }

    /**
     * Runs {@code action} on the node's event loop once every write that has returned so far (on whatever thread) is
     * durable as the store's settings promise (the node calls it once a submitted write has completed): at once when
     * writes are durable on return (in memory, or a log that is not synced), later when a log sync must return first.
     * Writes made before one call are covered by the same sync, so concurrent writers share syncs (group commit).
     * Actions run in the order given.
     */
    default void whenDurable(Runnable action) {
        action.run();
    }

    /**
     * Runs {@code work} (which calls this store) where it cannot stall the node's event loop, then {@code done} on the
     * loop with what it returned, or with what it threw (the result then null). Works run one at a time, in the order
     * submitted, and their {@code done}s in the same order, so a write submitted before a read is seen by it. A store
     * that cannot take more work now (its queue is full) runs nothing and calls {@code done} at once with a
     * {@link StoreException}: the node answers that request as a storage fault rather than let the queue grow.
     *
     * <p>This default runs both at once on the caller's thread: a store in memory, whose work costs no more than the
     * task that submits it. So the virtual world stays deterministic, and a node over it behaves as if every store
     * call were made where it is submitted.
     */
    default <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        runNow(work, done);
    }

    /** Runs {@code work}, then {@code done} with its result or what it threw, both on the caller's thread. */
    static <T> void runNow(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        T result;
        try {
            result = work.get();
        } catch (RuntimeException e) {
            done.accept(null, e);
            return;
        }
        done.accept(result, null);
    }

    /** False while the store is in a storage fault (full, or failing I/O) that stops writes; it may recover. */
    default boolean healthy() {
        return true;
    }

    /** Checks a scan or purge limit; shared so that every store refuses the same input the same way. */
    static void checkLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
    }

    /** A scan position: {@code (key, slotExclusive)}. */
    record Cursor(Id key, Bytes slotExclusive) {
        public static final Cursor START = new Cursor(Id.ZERO, Bytes.EMPTY);

        public static Cursor atKey(Id key) {
            return new Cursor(key, Bytes.EMPTY);
        }
    }
}
