package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.env.Clock;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's copies: the only door to its {@link Store}. It reads pages of a key's values, writes puts, replicas and
 * removes under the tombstone rule, and checks replicas that peers send. Pure logic over the store and the clock: it
 * sends nothing. Owned by the node's event loop; what touches the disk at volume runs off it ({@link #offLoop}).
 */
final class LocalReplica {

    private static final Logger log = LoggerFactory.getLogger(LocalReplica.class);
    /** Records read from the store at a time by scans. */
    static final int SCAN_PAGE = 512;
    private static final int PURGE_BATCH = 10_000;
    /**
     * A tombstone outlives its value by this much: every replica's expiry clock is within S of the true time, so a
     * copy of the value expires everywhere before its tombstone does anywhere (2 S, and a margin for transit).
     */
    static final long TOMBSTONE_MARGIN_MILLIS = 4 * ExpiryClock.SKEW_BOUND_MILLIS;

    private final NodeConfig config;
    private final Store store;
    private final Clock clock;
    private final String tag;
    private final PlantedBugs bugs;
    private final KeyPages pages;

    LocalReplica(NodeConfig config, Store store, Clock clock, String tag) {
        this(config, store, clock, tag, PlantedBugs.NONE);
    }

    LocalReplica(NodeConfig config, Store store, Clock clock, String tag, PlantedBugs bugs) {
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.tag = tag;
        this.bugs = bugs;
        this.pages = new KeyPages(config, store, clock, bugs);
    }

    /** One page of a get ({@link KeyPages#values}). */
    GetReply readPage(Id key, int maxValues, Bytes placemark, int hops, ValueFilter filter) {
        return pages.values(key, maxValues, placemark, hops, filter);
    }

    /** One page of a quorum get's records ({@link KeyPages#records}). */
    RecordPage readRecords(Id key, Bytes placemark, int maxRecords, ValueFilter filter) {
        return pages.records(key, placemark, maxRecords, filter);
    }

    /**
     * A record another replica sent in answer to a read, as this node would store it: null when it is malformed (a
     * value whose bytes do not match its hash, say) or expired by this node's clock; its expiry capped at the longest
     * TTL from now, as {@link #acceptReplicas} caps a pushed copy's.
     *
     * <p>A clock not yet settled since boot ({@link Clock#settled}) may be far ahead, and judges no copy expired, as it
     * purges nothing: else a node that booted ahead would drop every copy repair brings it, and lack them once its
     * peers set its clock right. A copy that was truly expired is purged once the clock settles.
     */
    StoredRecord readable(ReplicaRecord r) {
        long nowMillis = clock.epochMillis();
        if (r.stamp() != null) {
            return OwnedRecords.readable(r, config, nowMillis, clock.settled());
        }
        long expiresAt = Math.min(r.expiresAtMillis(), nowMillis + config.ttlSecondsMax() * 1000L)
                + (bugs.extraSecondOnCopy() ? 1000 : 0);
        if ((expiresAt <= nowMillis && clock.settled()) || !wellFormed(r)) {
            return null;
        }
        return new StoredRecord(r.key(), r.valueHash(), r.value(), expiresAt, r.binding(), r.secret(), r.tombstone());
    }

    /** Whether any record, value or tombstone, is held under {@code key}. */
    boolean holdsAny(Id key) {
        List<StoredRecord> first = store.scanKey(Store.Cursor.atKey(key), 1);
        return !first.isEmpty() && first.get(0).key().equals(key);
    }

    /**
     * The record a put stores: its value, expiring when the gateway's expiry clock said, but no later than its TTL
     * + 2 S from now (clocks within S of the true time differ by up to 2 S: a gateway further ahead would stretch the
     * value), nor than the longest TTL from now, as a pushed copy is capped ({@link #acceptReplicas}). A stamp later
     * than that is set aside, and the put expires its TTL from now by this node's clock: no gateway within S of the
     * true time could have set it, and a gateway far ahead would otherwise still stretch the value by the allowance
     * (docs/history.md, "A gateway's stamp beyond the cap is set aside"). Only by a clock fit to stamp
     * ({@code Clock#mayStamp}): one restarted behind its mark would take a right stamp for a late one and set its own,
     * early one; the gateway's clock was fit (it holds puts until it is), so its stamp stands, within the longest TTL.
     */
    StoredRecord recordOf(PutRequest p) {
        long now = clock.epochMillis();
        long cap = now + config.ttlSecondsMax() * 1000L;
        long own = Math.min(now + p.ttlSeconds() * 1000L, cap);
        long latest = Math.min(own + ExpiryClock.SPREAD_BOUND_MILLIS, cap);
        long expiresAt = p.expiresAtMillis() <= latest ? p.expiresAtMillis()
                : clock.mayStamp() ? own : Math.min(p.expiresAtMillis(), cap);
        if (p.stamp() != null) {
            Bytes slot = OwnedSlot.of(config.namespace(), p.stamp().owner(), p.stamp().valueId());
            return StoredRecord.owned(p.key(), slot, p.value(), p.stamp(), p.value().isEmpty());
        }
        return StoredRecord.value(p.key(), p.value(), expiresAt, p.binding());
    }

    /** Writes {@code rec} as the {@link TombstoneRule} says; false when the rule refuses it. */
    boolean store(StoredRecord rec) {
        return write(outcome(store.read(rec.key(), rec.slot()).orElse(null), rec));
    }

    /**
     * A root's own write of a put (off the loop): an unowned one under the {@link TombstoneRule}; an owned one checked
     * (signature, slot, expiry: else FORBIDDEN) and written under the owner's rule ({@link OwnedRecords#write}).
     */
    WriteVerdict storeForPut(StoredRecord rec, PutCondition condition) {
        if (!rec.isOwned()) {
            return store(rec) ? WriteVerdict.STORED : new WriteVerdict(Status.FORBIDDEN, "this value was removed by "
                    + "its owner; a put of it with the same secret is refused until the removal expires", null);
        }
        OwnedRecords.Written w = OwnedRecords.rootWrite(store.read(rec.key(), rec.slot()).orElse(null), rec,
                bugs.has(PlantedBugs.Bug.OWNED_CONDITION_IGNORED) ? PutCondition.NONE : condition, config,
                clock.epochMillis());
        if (w.toWrite() != null) {
            store.write(w.toWrite());
        }
        return w.verdict();
    }

    /** What the {@link TombstoneRule} does when {@code rec} meets {@code held} (null: nothing; planted bug: writes). */
    private TombstoneRule.Outcome outcome(StoredRecord held, StoredRecord rec) {
        if (held == null && !rec.tombstone() && !rec.isOwned() && bugs.has(PlantedBugs.Bug.BINDINGS_FIRST_COME)
                && copyUnderAnotherBinding(rec.key(), rec.valueHash()) != null) {
            // The planted bug (test-only): the bytes stored first keep their binding, as before protocol 16.
            return TombstoneRule.Outcome.UNCHANGED;
        }
        return bugs.tombstoneRuleOff() ? TombstoneRule.Outcome.write(rec) : TombstoneRule.merge(held, rec);
    }

    private boolean write(TombstoneRule.Outcome outcome) {
        if (outcome.toWrite() != null) {
            store.write(outcome.toWrite());
        }
        return outcome.accepted();
    }

    /**
     * Stores the well-formed records a peer pushed (values whose bytes match their hash and size limit); how many.
     * A tombstone is checked against the value held here ({@link TombstoneRule}): it removes it only when its secret
     * opens the value's binding.
     */
    int acceptReplicas(List<ReplicaRecord> records) {
        return accept(records).count();
    }

    /**
     * What {@link #accept} stored: how many, and those of them of which nothing was held here before. A copy this
     * node's clock, not yet settled, judges expired is stored ({@link #readable}) but not counted: this node cannot
     * serve it until its peers set the clock right, so a put must not count it among its W.
     */
    record Accepted(int count, List<StoredRecord> fresh) {
    }

    /** As {@link #acceptReplicas}, telling which records were new here. */
    Accepted accept(List<ReplicaRecord> records) {
        int accepted = 0;
        List<StoredRecord> fresh = new ArrayList<>();
        for (ReplicaRecord r : records) {
            StoredRecord rec = readable(r);
            StoredRecord held = rec == null ? null : store.read(rec.key(), rec.slot()).orElse(null);
            TombstoneRule.Outcome outcome = rec == null ? TombstoneRule.Outcome.REFUSED : outcome(held, rec);
            // An owner's signature is checked where it would be written: a version held already, or an older one
            // (a resend, repair), costs no check (the check is 0.1 ms; a put's copy may come several times).
            if (rec == null || rec.isOwned() && outcome.toWrite() != null
                    && OwnedRecords.formProblem(rec, config.namespace(), config.valueBytesMax(), true) != null) {
                continue;
            }
            if (write(outcome)) {
                accepted += counts(rec) ? 1 : 0;
                if (held == null) {
                    fresh.add(rec);
                }
            }
        }
        return new Accepted(accepted, fresh);
    }

    /**
     * Whether a copy stored here counts toward a put's W: not one this node's clock judges expired, which it cannot
     * serve (a pushed one, stored while the clock is unsettled, or the root's own, whose stamp a clock far ahead
     * has passed).
     */
    boolean counts(StoredRecord r) {
        return !r.isExpired(clock.epochMillis());
    }

    private boolean wellFormed(ReplicaRecord r) {
        if (!r.tombstone() && (r.value().length() > config.valueBytesMax()
                || !r.value().sha256().equals(r.valueHash()))) {
            log.debug("{} rejects a replica of {} whose hash or size is wrong", tag, r.key().shortHex());
            return false;
        }
        if (r.tombstone() ? !r.value().isEmpty() || !r.binding().isEmpty() || r.secret().isEmpty()
                : !r.secret().isEmpty()) {
            // A value with a secret or a tombstone without one: no honest node sends either.
            log.debug("{} rejects a replica of {} whose secret or binding is misplaced", tag, r.key().shortHex());
            return false;
        }
        return r.valueHash().length() == StoredRecord.HASH_BYTES
                && (r.binding().isEmpty() || r.binding().length() == StoredRecord.HASH_BYTES)
                && r.secret().length() <= StoredRecord.SECRET_BYTES_MAX;
    }

    /**
     * Removes the value held here that {@code secret} opens (the copy in the slot its binding names), leaving a
     * tombstone that carries the secret ({@link TombstoneRule}); it then spreads to the other replicas by
     * anti-entropy, each of which checks it against its own copy, so a copy that arrives later from a replica that
     * missed the remove is dropped. Copies of the same bytes under other bindings are other puts' and stay: a remove
     * that finds only those is FORBIDDEN.
     */
    Status remove(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) {
        return removal(key, valueHash, secret, ttlSeconds).status();
    }

    /** As {@link #remove}, with the tombstone it wrote (null: none): what the key's watching gateways hear. */
    TombstoneRule.Removal removal(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) {
        long tombstoneUntil = clock.epochMillis() + Math.min(Math.max(ttlSeconds, 1), config.ttlSecondsMax()) * 1000L;
        StoredRecord held = store.read(key, SecretBinding.slotOpenedBy(secret, key, valueHash))
                .orElseGet(() -> copyUnderAnotherBinding(key, valueHash));
        TombstoneRule.Removal removal = TombstoneRule.remove(held, secret, tombstoneUntil, TOMBSTONE_MARGIN_MILLIS);
        if (removal.tombstone() != null) {
            store.write(removal.tombstone());
        }
        return removal;
    }

    /**
     * A live unowned value of these bytes under {@code key}, whatever its binding, among the key's first
     * {@link #SCAN_PAGE} records; null when none. Bounded so that a remove with a wrong secret costs no more than a
     * get's page: past it, a remove of bytes held only under another binding is answered NOT_FOUND, not FORBIDDEN.
     */
    private StoredRecord copyUnderAnotherBinding(Id key, Bytes valueHash) {
        for (StoredRecord r : store.scanKey(Store.Cursor.atKey(key), SCAN_PAGE)) {
            if (r.key().equals(key) && !r.tombstone() && !r.isOwned() && r.valueHash().equals(valueHash)) {
                return r;
            }
        }
        return null;
    }

    /** A record as it travels to another replica: with its absolute expiry (ReplicaRecord says why). */
    ReplicaRecord toWire(StoredRecord r) {
        return new ReplicaRecord(r.key(), r.valueHash(), r.value(), r.expiresAtMillis(), r.binding(), r.secret(),
                r.tombstone(), r.stamp());
    }

    /** The live record in {@code slot} under {@code key} ({@link StoredRecord#slot}). */
    Optional<StoredRecord> read(Id key, Bytes slot) {
        return store.read(key, slot);
    }

    /** Up to {@code limit} live records after {@code from}, in key order. */
    List<StoredRecord> scan(Store.Cursor from, int limit) {
        return store.scan(from, limit);
    }

    /** Deletes expired records from the store and its expiry index, a bounded batch per call. */
    void purgeExpired() {
        if (!clock.settled()) {
            // An expiry clock not yet confirmed since boot may be far ahead: purging by it would destroy live records.
            return;
        }
        int n = store.purgeExpired(PURGE_BATCH);
        if (n > 0) {
            log.debug("{} purged {} expired records", tag, n);
        }
    }

    long size() {
        return store.size();
    }

    /** Runs {@code action} once every write so far is durable ({@link Store#whenDurable}). */
    void whenDurable(Runnable action) {
        store.whenDurable(action);
    }

    /** False while the store is in a storage fault; the node is then not ready. */
    boolean healthy() {
        return store.healthy();
    }

    /** Whether its peers confirmed this node's expiry clock since boot ({@link Clock#settled}); else it may be ahead. */
    boolean clockSettled() {
        return clock.settled();
    }

    /**
     * Whether this node's expiry clock has not settled since boot and a peer's time says it is off by more than S
     * ({@link Clock#inDoubt}): a clock an hour ahead hides every record from this node's own reads.
     */
    boolean clockInDoubt() {
        return clock.inDoubt();
    }

    /** The status a replica answers when its store failed with {@code e}. */
    static Status statusOf(StoreException e) {
        return e.kind() == StoreException.Kind.FULL ? Status.STORAGE_FULL : Status.IO_ERROR;
    }

    // ---------------------------------------------------------------- off the node's loop

    /**
     * Runs {@code work} where it cannot stall the node's loop ({@link Store#submit}: on the store's own thread in the
     * real node, at once in memory), then {@code done} on the loop with its result, or with the failure it threw.
     * Work may call this class's store methods above, which touch only the store, the (thread-safe) clock and the
     * config, and nothing else of the node: node state belongs to the loop, so it is read before and after.
     */
    <T> void offLoop(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
        store.submit(work, done);
    }

    /** Reads each of {@code refs} off the loop; {@code done} gets one entry per ref, in order (empty: not held). */
    void readEach(List<ReplicaStream.Ref> refs, BiConsumer<List<Optional<StoredRecord>>, RuntimeException> done) {
        List<ReplicaStream.Ref> wanted = List.copyOf(refs);
        offLoop(() -> {
            List<Optional<StoredRecord>> held = new ArrayList<>(wanted.size());
            for (ReplicaStream.Ref r : wanted) {
                held.add(store.read(r.key(), r.slot()));
            }
            return held;
        }, done);
    }

    /**
     * The storage fault a store task failed with, or null when it did not fail. Any other failure is a bug: it is
     * thrown on, on the loop, as it would have been had the work run there.
     */
    static StoreException storeFault(RuntimeException failure) {
        if (failure == null || failure instanceof StoreException) {
            return (StoreException) failure;
        }
        throw failure;
    }
}
