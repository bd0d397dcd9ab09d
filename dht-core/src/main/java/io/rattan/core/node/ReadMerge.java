package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The merge of a quorum get: from the records R replicas hold under one key (values and tombstones, each replica's
 * page in slot order), the page of live values to answer with, and the records each replica must be sent so
 * that it holds what the merge holds (read repair). Pure logic: no clock, no store, no network.
 *
 * <p>Per value hash the records are folded with the {@link TombstoneRule}, the rule every replica applies to a write:
 * a tombstone wins over a value of its own secret, the later expiry wins between two values, and so on. A record
 * whose expiry has passed takes no part. A replica is sent the merged record exactly when the rule, applied to what
 * it holds, would write it (it lacks the record, holds an older expiry, or holds the value a tombstone removed), so
 * a replica that already agrees is sent nothing.
 *
 * <p>Pages: a replica whose page was cut ({@code more}) said nothing of the hashes after its last record, so the
 * merge covers only the hashes up to the smallest such last hash (the cut); the answer's placemark then resumes after
 * it. The page is further cut at {@code maxValues} live values and {@code pageBytesMax} value bytes (but at least one
 * value), and repairs cover only what the answer covers.
 */
final class ReadMerge {

    /** One replica's answer: its records after the placemark, in slot order; {@code more}: records follow. */
    record Answer(Contact from, List<StoredRecord> records, boolean more) {
        Answer {
            records = List.copyOf(records);
        }
    }

    /** The records to send to one replica. */
    record Repair(Contact to, List<StoredRecord> records) {
        Repair {
            records = List.copyOf(records);
        }
    }

    /**
     * The merge: the live values of the page (slot order), the placemark to resume from (empty: the key has no
     * more), and the repairs, one per replica that lacks something (none for a replica that agrees).
     */
    record Result(List<ValueEntry> values, Bytes placemark, List<Repair> repairs) {
        Result {
            values = List.copyOf(values);
            repairs = List.copyOf(repairs);
        }

        /** Records sent in all repairs. */
        int repairedRecords() {
            int n = 0;
            for (Repair r : repairs) {
                n += r.records().size();
            }
            return n;
        }
    }

    private ReadMerge() {
    }

    /**
     * Merges {@code answers} at {@code nowMillis}; their order decides only which record a tie keeps. Unless
     * {@code judgeExpiry}, no record is left out as expired at {@code nowMillis}: an expiry clock not settled since
     * boot may be far ahead, and would judge every record the other replicas answered with expired. The others'
     * answers hold only what their own clocks judge live.
     */
    static Result merge(List<Answer> answers, int maxValues, int pageBytesMax, long nowMillis, boolean judgeExpiry) {
        Bytes cut = null;
        for (Answer a : answers) {
            if (a.more() && !a.records().isEmpty()) {
                Bytes last = a.records().get(a.records().size() - 1).slot();
                cut = cut == null || last.compareTo(cut) < 0 ? last : cut;
            }
        }
        // Per slot, in order: each replica's live record (or none), and the merged record.
        TreeMap<Bytes, StoredRecord> merged = new TreeMap<>();
        List<Map<Bytes, StoredRecord>> held = new ArrayList<>(answers.size());
        for (Answer a : answers) {
            Map<Bytes, StoredRecord> mine = new TreeMap<>();
            for (StoredRecord r : a.records()) {
                Bytes slot = r.slot();
                if ((judgeExpiry && r.isExpired(nowMillis)) || (cut != null && slot.compareTo(cut) > 0)) {
                    continue;
                }
                mine.put(slot, r);
                StoredRecord after = fold(merged.get(slot), r);
                if (after != null) {
                    merged.put(slot, after);
                }
            }
            held.add(mine);
        }

        PageValues values = new PageValues();
        int bytes = 0;
        Bytes lastValue = null;
        boolean full = false;
        for (Map.Entry<Bytes, StoredRecord> m : merged.entrySet()) {
            StoredRecord r = m.getValue();
            if (r.tombstone()) {
                continue;
            }
            long ttl = Math.max(0, r.expiresAtMillis() - nowMillis);
            if (!values.merged(r, ttl)) {
                if (values.size() >= maxValues || (bytes + r.value().length() > pageBytesMax && !values.isEmpty())) {
                    full = true;
                    break;
                }
                values.add(r, ttl);
                bytes += r.value().length();
            }
            lastValue = m.getKey();
        }
        // The answer covers every merged hash up to `limit` (all of them when null): up to its last value when the
        // page filled (a page that fills holds at least one value), else up to the cut.
        Bytes limit = full ? lastValue : cut;
        Bytes placemark = limit == null ? Bytes.EMPTY : limit;

        return new Result(values.list(), placemark, repairs(answers, held, merged, limit));
    }

    /** For each replica, the merged records up to {@code limit} (null: all) that it lacks or holds older. */
    private static List<Repair> repairs(List<Answer> answers, List<Map<Bytes, StoredRecord>> held,
                                        TreeMap<Bytes, StoredRecord> merged, Bytes limit) {
        List<Repair> repairs = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            List<StoredRecord> owed = new ArrayList<>();
            for (StoredRecord w : merged.values()) {
                Bytes slot = w.slot();
                if (limit != null && slot.compareTo(limit) > 0) {
                    break;
                }
                if (TombstoneRule.merge(held.get(i).get(slot), w).toWrite() != null) {
                    owed.add(w);
                }
            }
            if (!owed.isEmpty()) {
                repairs.add(new Repair(answers.get(i).from(), owed));
            }
        }
        return repairs;
    }

    /** What a replica holding {@code held} would hold after {@code incoming} (null: nothing). */
    private static StoredRecord fold(StoredRecord held, StoredRecord incoming) {
        TombstoneRule.Outcome outcome = TombstoneRule.merge(held, incoming);
        return outcome.toWrite() != null ? outcome.toWrite() : held;
    }
}
