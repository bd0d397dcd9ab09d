package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.store.StoredRecord;

/**
 * The rule for what a replica holds when a write meets the record it already holds under the same
 * {@code (key, slot)} ({@link StoredRecord#slot}), and when a remove may leave a tombstone. Every write of a put, a pushed replica or a
 * remove goes through here; the store below only holds what it is given.
 *
 * <p>A value holds its binding, {@code SHA-256(secret ‖ key ‖ valueHash)}; a tombstone holds the remove's secret. A
 * tombstone <em>opens</em> a value when its secret opens the value's binding ({@link SecretBinding#opens}). Nothing
 * a path node saw (the binding) opens anything, so no node can make a tombstone that removes a value it only carried.
 * Since protocol 16 a value's slot commits to its binding and a tombstone's to the binding its secret opens, so the
 * records that meet here always name the same binding: the same bytes under another binding (or none) are another
 * record, which a tombstone never meets, and which never takes over another's remove.
 *
 * <ul>
 *   <li>A tombstone replaces a value only if it opens it, stretched to outlive that copy by the margin: one made
 *       where the copy had less time left must not expire before a longer-lived copy that another node may hold. One
 *       that does not open it is refused. A tombstone without a secret (which no remove creates; only a migrated
 *       store of format 1 holds one) is refused from anyone.</li>
 *   <li>A tombstone that meets nothing is kept, secret and all: it cannot be checked yet, but it only ever removes a
 *       value it opens, so it is checked when the value arrives.</li>
 *   <li>A value never overrides a tombstone that opens it: a put that meets its own remove stays removed, and the
 *       tombstone is stretched to outlive that copy by the margin. A value the tombstone does not open replaces the
 *       tombstone (only a forged tombstone can be in its slot and not open it). A migrated tombstone without a
 *       secret stands for a removed value of format 1, whose binding the migration had to drop: it blocks values
 *       without a binding.</li>
 *   <li>Between two values (of one slot, so one binding) the later expiry wins.</li>
 *   <li>Between two tombstones of the same secret the later expiry wins; one of another secret is refused (the held
 *       one stays). On a tie the held record stays.</li>
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

    /**
     * {@code incoming} meets {@code held}, the live record under the same key and slot (null: none). Owned
     * records follow their owner's rule instead ({@link OwnedRecords#copy}).
     */
    static Outcome merge(StoredRecord held, StoredRecord incoming) {
        if (incoming.isOwned() || held != null && held.isOwned()) {
            return OwnedRecords.copy(held, incoming);
        }
        if (incoming.tombstone() && incoming.secret().isEmpty()) {
            return Outcome.REFUSED;
        }
        if (held == null) {
            return Outcome.write(incoming);
        }
        if (incoming.tombstone()) {
            if (held.tombstone()) {
                if (!held.secret().equals(incoming.secret())) {
                    return Outcome.REFUSED;
                }
                return incoming.expiresAtMillis() > held.expiresAtMillis() ? Outcome.write(incoming)
                        : Outcome.UNCHANGED;
            }
            return opens(incoming.secret(), held) ? Outcome.write(outliving(incoming, held)) : Outcome.REFUSED;
        }
        if (held.tombstone()) {
            if (!blocks(held, incoming)) {
                return Outcome.write(incoming);
            }
            // A copy that lives longer than the tombstone (the same bytes put again later set a later expiry) would
            // come back once the tombstone expired: the tombstone is stretched to outlive it.
            StoredRecord stretched = outliving(held, incoming);
            return stretched == held ? Outcome.REFUSED : new Outcome(false, stretched);
        }
        return incoming.expiresAtMillis() > held.expiresAtMillis() ? Outcome.write(incoming) : Outcome.UNCHANGED;
    }

    /**
     * A remove presenting {@code secret} meets {@code held} (null: nothing held). It leaves a tombstone that
     * outlives the value (by {@code marginMillis} at least, the clocks' disagreement), until
     * {@code tombstoneUntilMillis} at least, only where the secret opens the value held here. Not held here:
     * nothing is written and the answer is NOT_FOUND; the tombstone of a remove that some replica checked reaches
     * this one by anti-entropy, carrying the secret, and is checked again here when the value is.
     */
    static Removal remove(StoredRecord held, Bytes secret, long tombstoneUntilMillis, long marginMillis) {
        if (held == null) {
            return new Removal(Status.NOT_FOUND, null);
        }
        if (held.tombstone()) {
            // Removed already: with this secret, a repeated remove succeeds.
            return new Removal(!secret.isEmpty() && held.secret().equals(secret) ? Status.OK : Status.NOT_FOUND,
                    null);
        }
        if (!opens(secret, held)) {
            return new Removal(Status.FORBIDDEN, null);
        }
        return new Removal(Status.OK, StoredRecord.tombstone(held.key(), held.valueHash(),
                Math.max(tombstoneUntilMillis, held.expiresAtMillis() + marginMillis), secret));
    }

    /** Whether {@code secret} opens the binding of {@code value}. */
    static boolean opens(Bytes secret, StoredRecord value) {
        return SecretBinding.opens(secret, value.key(), value.valueHash(), value.binding());
    }

    /** {@code tombstone}, lasting at least the margin beyond {@code value}, the copy it replaces. */
    private static StoredRecord outliving(StoredRecord tombstone, StoredRecord value) {
        long outlive = value.expiresAtMillis() + LocalReplica.TOMBSTONE_MARGIN_MILLIS;
        return outlive <= tombstone.expiresAtMillis() ? tombstone
                : StoredRecord.tombstone(tombstone.key(), tombstone.valueHash(), outlive, tombstone.secret());
    }

    /** Whether the held tombstone keeps {@code value} out: it opens it, or it is a migrated one, the value unbound. */
    private static boolean blocks(StoredRecord tombstone, StoredRecord value) {
        return tombstone.secret().isEmpty() ? value.binding().isEmpty() : opens(tombstone.secret(), value);
    }
}
