package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the records of one {@link KeyRange} that pass a filter, one store page per event-loop task, so that a range
 * of millions of records never holds the node's loop for longer than one page (the page itself is read off the loop,
 * {@link LocalReplica#offLoop}; the loop only sums or lists it): it either sums them per part
 * ({@link #sums}) or lists them ({@link #entries}). A store failure ends the scan with {@code null}.
 */
final class RangeScan {

    private static final Logger log = LoggerFactory.getLogger(RangeScan.class);

    private final NodeContext ctx;
    private final LocalReplica replica;
    private final KeyRange range;
    private final Predicate<Id> filter;
    private final Predicate<StoredRecord> visitor;
    private final Runnable done;
    private final Runnable failed;
    private final boolean wraps;
    private Store.Cursor cursor;
    private boolean wrapped;

    private RangeScan(NodeContext ctx, LocalReplica replica, KeyRange range, Predicate<Id> filter,
                      Predicate<StoredRecord> visitor, Runnable done, Runnable failed) {
        this.ctx = ctx;
        this.replica = replica;
        this.range = range;
        this.filter = filter;
        this.visitor = visitor;
        this.done = done;
        this.failed = failed;
        this.wraps = range.isWhole() || range.hi().compareTo(range.lo()) <= 0;
        this.cursor = Store.Cursor.atKey(range.lo());
    }

    /**
     * The sums of the records in each of {@code parts} (consecutive parts of one arc) that pass {@code filter};
     * {@code done} gets them in the parts' order, or null when the store failed.
     */
    static void sums(NodeContext ctx, LocalReplica replica, List<KeyRange> parts, Predicate<Id> filter,
                     Consumer<List<RangeSum>> done) {
        sums(ctx, replica, parts, new KeyRange(parts.get(0).lo(), parts.get(parts.size() - 1).hi()), filter, done);
    }

    /**
     * As {@link #sums(NodeContext, LocalReplica, List, Predicate, Consumer)}, reading only the arc {@code read}: the
     * caller knows {@code filter} accepts no key outside it.
     */
    static void sums(NodeContext ctx, LocalReplica replica, List<KeyRange> parts, KeyRange read, Predicate<Id> filter,
                     Consumer<List<RangeSum>> done) {
        int n = parts.size();
        int[] counts = new int[n];
        long[] hashes = new long[n];
        Id[] ends = KeyRange.partEnds(parts);
        new RangeScan(ctx, replica, read, filter, r -> {
            int i = KeyRange.partOf(parts, r.key(), ends);
            if (i >= 0) {
                counts[i]++;
                hashes[i] += hash(r.key(), r.slot(), r.tombstone(), OwnedRecords.stampTag(r));
            }
            return true;
        }, () -> {
            List<RangeSum> sums = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                sums.add(new RangeSum(counts[i], hashes[i]));
            }
            done.accept(sums);
        }, () -> done.accept(null)).step();
    }

    /**
     * The records of {@code range} that pass {@code filter}, as digest entries, at most {@code max}; {@code done}
     * gets them, or null when the store failed or more than {@code max} are there.
     */
    static void entries(NodeContext ctx, LocalReplica replica, KeyRange range, Predicate<Id> filter, int max,
                        Consumer<List<DigestEntry>> done) {
        List<DigestEntry> found = new ArrayList<>();
        boolean[] over = new boolean[1];
        new RangeScan(ctx, replica, range, filter, r -> {
            if (found.size() >= max) {
                over[0] = true;
                return false;
            }
            found.add(OwnedRecords.digestEntry(r));
            return true;
        }, () -> done.accept(over[0] ? null : found), () -> done.accept(null)).step();
    }

    /**
     * A record's 64-bit digest hash over (key, slot, tombstone, version), mixed so that sums of many hashes stay well
     * spread; the version is an owned record's stamp tag ({@link OwnedRecords#stampTag}), 0 for others.
     */
    static long hash(Id key, Bytes slot, boolean tombstone, long version) {
        long v = 0;
        for (int i = 0; i < 8 && i < slot.length(); i++) {
            v = (v << 8) | (slot.get(i) & 0xFF);
        }
        long h = mix(key.hi() ^ 0x9E3779B97F4A7C15L);
        h = mix(h ^ key.mid());
        h = mix(h ^ key.lo());
        h = mix(h ^ v);
        h = mix(h ^ (tombstone ? 0x5851F42D4C957F2DL : 0x2545F4914F6CDD1DL));
        return mix(h ^ version);
    }

    /** MurmurHash3's 64-bit finaliser. */
    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 33;
        x *= 0xC4CEB9FE1A85EC53L;
        return x ^ (x >>> 33);
    }

    /** One page, read off the loop; the next is a task of its own. */
    private void step() {
        Store.Cursor from = cursor;
        replica.offLoop(() -> replica.scan(from, LocalReplica.SCAN_PAGE), (page, failure) -> {
            if (failure != null) {
                log.warn("{} range scan failed: {}", ctx.tag(), failure.toString());
                failed.run();
            } else {
                visit(page);
            }
        });
    }

    /** On the loop: passes one page's records to the visitor, then asks for the next page or ends. */
    private void visit(List<StoredRecord> page) {
        if (page.isEmpty()) {
            if (wraps && !wrapped) {
                wrapped = true;
                cursor = Store.Cursor.START;
                ctx.scheduler().schedule(0, this::step);
            } else {
                done.run();
            }
            return;
        }
        Id end = range.isWhole() ? range.lo() : range.hi();
        for (StoredRecord r : page) {
            cursor = new Store.Cursor(r.key(), r.slot());
            boolean past = wraps ? wrapped && r.key().compareTo(end) >= 0 : r.key().compareTo(end) >= 0;
            if (past) {
                done.run();
                return;
            }
            if (filter.test(r.key()) && !visitor.test(r)) {
                done.run();
                return;
            }
        }
        ctx.scheduler().schedule(0, this::step);
    }
}
