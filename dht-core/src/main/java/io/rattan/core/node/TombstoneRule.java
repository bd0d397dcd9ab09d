package io.rattan.core.node;

import io.rattan.core.msg.Status;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;

/**
 * The rule for what a replica holds when a write meets the record it already holds under the same
 * {@code (key, valueHash)}, and when a remove may leave a tombstone. Every write of a put, a pushed replica or a
 * remove goes through here; the store below only holds what it is given.
 *
 * <ul>
 *   <li>A tombstone removes a value only if both carry the same secret hash; a tombstone without one (which no remove
 *       creates) is refused.</li>
 *   <li>A value never overrides a tombstone of its own secret: a put that meets its own remove stays removed, and the
 *       tombstone is stretched to outlive that copy by the margin. A value
 *       of another owner (another secret, or none) replaces the tombstone.</li>
 *   <li>Between two values the later expiry wins, but a value keeps the secret hash it was first stored with, so
 *       re-putting the same bytes with another secret cannot take over the right to remove it.</li>
 *   <li>Between two tombstones the later expiry wins. On a tie the held record stays.</li>
 * </ul>
 */
final class TombstoneRule {

    /**
     * What to do with a write: refused, or accepted, with the record to write ({@code null}: none; a refused value
     * may still stretch the tombstone that refused it).
     */
    record Outcome(boolean accepted, StoredRecord toWrite) {
        static final Outcome REFUSED = new Outcome(false, null);
        static final Outcome UNCHANGED = new Outcome(true, null);

        static Outcome write(StoredRecord r) {
            return new Outcome(true, r);
        }
    }

    /** What a remove does: its status, and the tombstone to write ({@code null}: nothing). */
    record Removal(Status status, StoredRecord tombstone) {
    }

    private TombstoneRule() {
    }

    /** {@code incoming} meets {@code held}, the live record under the same key and value hash (null: none). */
    static Outcome merge(StoredRecord held, StoredRecord incoming) {
        if (incoming.tombstone() && incoming.secretHash().isEmpty()) {
            return Outcome.REFUSED;
        }
        if (held == null) {
            return Outcome.write(incoming);
        }
        boolean sameSecret = held.secretHash().equals(incoming.secretHash());
        if (incoming.tombstone()) {
            if (!sameSecret) {
                return Outcome.REFUSED;
            }
            return !held.tombstone() || incoming.expiresAtMillis() > held.expiresAtMillis() ? Outcome.write(incoming)
                    : Outcome.UNCHANGED;
        }
        if (held.tombstone()) {
            if (!sameSecret) {
                return Outcome.write(incoming);
            }
            // A copy that lives longer than the tombstone (a put re-routed or duplicated set a later expiry) would
            // come back once the tombstone expired: the tombstone is stretched to outlive it.
            long outlive = incoming.expiresAtMillis() + LocalReplica.TOMBSTONE_MARGIN_MILLIS;
            return outlive <= held.expiresAtMillis() ? Outcome.REFUSED : new Outcome(false,
                    StoredRecord.tombstone(held.key(), held.valueHash(), outlive, held.secretHash()));
        }
        if (incoming.expiresAtMillis() <= held.expiresAtMillis()) {
            return Outcome.UNCHANGED;
        }
        return Outcome.write(sameSecret ? incoming : new StoredRecord(incoming.key(), incoming.valueHash(),
                incoming.value(), incoming.expiresAtMillis(), held.secretHash(), false));
    }

    /**
     * A remove presenting {@code secretHash} meets {@code held} (null: nothing held). It leaves a tombstone that
     * outlives the value (by {@code marginMillis} at least, the clocks' disagreement), until
     * {@code tombstoneUntilMillis} at least, only where it proves the secret: a value held
     * here under the same secret hash. Not held here: nothing proves the secret, so nothing is written; the tombstone
     * of a remove that some replica authorised reaches this one by anti-entropy.
     */
    static Removal remove(StoredRecord held, Bytes secretHash, long tombstoneUntilMillis, long marginMillis) {
        if (held == null) {
            return new Removal(Status.NOT_FOUND, null);
        }
        if (!held.secretHash().equals(secretHash)) {
            return new Removal(held.tombstone() ? Status.NOT_FOUND : Status.FORBIDDEN, null);
        }
        if (held.tombstone()) {
            return new Removal(Status.OK, null);
        }
        return new Removal(Status.OK, StoredRecord.tombstone(held.key(), held.valueHash(),
                Math.max(tombstoneUntilMillis, held.expiresAtMillis() + marginMillis), secretHash));
    }
}
