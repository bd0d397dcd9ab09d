package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.OwnerStamp;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a gateway's watch of one key knows of the key's values, and the changes each batch of records makes to it
 * (pure; no time of its own). Copies of one value arrive from every replica, and late copies after a remove, so a
 * value is news once: a new hash, or a newer sequence of an owned slot; a removed record is remembered until its
 * tombstone expires, so that a stale copy does not bring it back. Records are known by slot (the same bytes put with
 * two secrets are two records, each removed by its own), and clients hear of values by hash: bytes are news when a
 * first record of them is, and gone when the last one is.
 */
final class WatchedValues {

    /** One change a watch's clients hear of. {@code stamp} is the owner's (null: unowned), for their filters. */
    record Change(WatchKind kind, Bytes valueHash, ValueEntry value, OwnerStamp stamp) {
    }

    private record Known(Bytes hash, Bytes value, long expiresAtMillis, OwnerStamp stamp, boolean removed) {
        long seq() {
            return stamp == null ? 0 : stamp.seq();
        }
    }

    /** By slot. */
    private final Map<Bytes, Known> known = new HashMap<>();
    /** Live records per value hash. */
    private final Map<Bytes, Integer> liveByHash = new HashMap<>();

    /** The changes {@code records} (values and tombstones, as replicas hold them) make, in their order. */
    List<Change> apply(List<ReplicaRecord> records, long nowMillis) {
        List<Change> changes = new ArrayList<>();
        for (ReplicaRecord r : records) {
            Change c = r.tombstone() ? remove(r) : add(r, nowMillis);
            if (c != null) {
                changes.add(c);
            }
        }
        return changes;
    }

    private Change add(ReplicaRecord r, long nowMillis) {
        if (r.expiresAtMillis() <= nowMillis) {
            return null;
        }
        Bytes slot = r.slot();
        Known cur = known.get(slot);
        Known next = new Known(r.valueHash(), r.value(), r.expiresAtMillis(), r.stamp(), false);
        if (cur == null || (r.stamp() != null && Long.compareUnsigned(r.stamp().seq(), cur.seq()) > 0)) {
            known.put(slot, next);
            boolean firstCopy = cur != null && !cur.removed() || liveByHash.merge(r.valueHash(), 1, Integer::sum) == 1;
            return firstCopy || r.stamp() != null
                    ? new Change(WatchKind.VALUE, r.valueHash(), entry(next, nowMillis), r.stamp()) : null;
        }
        if (!cur.removed() && r.expiresAtMillis() > cur.expiresAtMillis()
                && Long.compareUnsigned(r.stamp() == null ? 0 : r.stamp().seq(), cur.seq()) == 0) {
            // The same value put again with a longer life (a permanent value's re-put): no news, a later expiry.
            known.put(slot, next);
        }
        return null;
    }

    private Change remove(ReplicaRecord r) {
        Bytes slot = r.slot();
        Known cur = known.get(slot);
        long seq = r.stamp() == null ? 0 : r.stamp().seq();
        Known gone = new Known(r.valueHash(), Bytes.EMPTY, r.expiresAtMillis(), r.stamp(), true);
        if (cur == null) {
            known.put(slot, gone);
            return null;
        }
        if (Long.compareUnsigned(seq, cur.seq()) < 0) {
            return null;
        }
        if (cur.removed()) {
            if (r.expiresAtMillis() > cur.expiresAtMillis()) {
                known.put(slot, gone);
            }
            return null;
        }
        known.put(slot, gone);
        return lastCopyGone(cur.hash()) ? new Change(WatchKind.REMOVED, cur.hash(), null, cur.stamp()) : null;
    }

    /** One live record of {@code hash} is gone: whether it was the last. */
    private boolean lastCopyGone(Bytes hash) {
        return liveByHash.merge(hash, -1, (a, b) -> a + b == 0 ? null : a + b) == null;
    }

    /** The live values whose TTL has ended by {@code nowMillis}, forgotten; and expired tombstones, silently. */
    List<Change> expire(long nowMillis) {
        List<Change> changes = new ArrayList<>();
        for (Iterator<Map.Entry<Bytes, Known>> it = known.entrySet().iterator(); it.hasNext(); ) {
            Known k = it.next().getValue();
            if (k.expiresAtMillis() <= nowMillis) {
                it.remove();
                if (!k.removed() && lastCopyGone(k.hash())) {
                    changes.add(new Change(WatchKind.EXPIRED, k.hash(), null, k.stamp()));
                }
            }
        }
        return changes;
    }

    /** Every live value, as {@code VALUE} changes: what a client that starts watching hears first. */
    List<Change> live(long nowMillis) {
        List<Change> values = new ArrayList<>();
        Set<Bytes> told = new HashSet<>();
        known.forEach((slot, k) -> {
            if (!k.removed() && k.expiresAtMillis() > nowMillis && told.add(k.hash())) {
                values.add(new Change(WatchKind.VALUE, k.hash(), entry(k, nowMillis), k.stamp()));
            }
        });
        return values;
    }

    int size() {
        return known.size();
    }

    private static ValueEntry entry(Known k, long nowMillis) {
        return new ValueEntry(k.value(), Math.max(0, k.expiresAtMillis() - nowMillis), k.stamp());
    }
}
