package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What a replica checks of an owned record before it stores one, and which of two it keeps: the owner's signature,
 * the slot its name must be, the signed expiry's bounds, and {@link OwnedRule} over the versions. Signatures are
 * checked only where the record is written, on the store's thread ({@link LocalReplica#offLoop}). Pure.
 */
final class OwnedRecords {

    private OwnedRecords() {
    }

    /**
     * What tells versions of an owned record apart in repair digests: the first 8 bytes of its signature, which
     * covers its sequence, kind, data and expiry, with the lowest bit set so that it is never 0; 0 for an unowned one.
     */
    static long stampTag(StoredRecord r) {
        if (!r.isOwned()) {
            return 0;
        }
        long tag = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            tag = (tag << 8) | (r.stamp().signature().get(i) & 0xFF);
        }
        return tag | 1;
    }

    /** A record as a repair digest names it. */
    static DigestEntry digestEntry(StoredRecord r) {
        return new DigestEntry(r.key(), r.slot(), r.tombstone(), r.seq(), stampTag(r));
    }

    /** The version of an owned record, as {@link OwnedRule} compares them. */
    static OwnedVersion version(StoredRecord r) {
        Bytes dataHash = r.tombstone() ? SignedBytes.EMPTY_DATA_HASH : r.value().sha256();
        return OwnedVersion.of(r.stamp(), r.tombstone(), dataHash);
    }

    /**
     * Why an owned record cannot be stored here as it is, or null when it can: its name is not its slot's, its data is
     * misplaced or too large, or (with {@code checkSignature}) its owner did not sign it. The expiry is judged apart
     * ({@link #expiryProblem}).
     */
    static String formProblem(StoredRecord r, String namespace, int valueBytesMax, boolean checkSignature) {
        OwnerStamp s = r.stamp();
        if (!r.valueHash().equals(OwnedSlot.of(namespace, s.owner(), s.valueId()))) {
            return "its name is not its owner's slot";
        }
        if (r.tombstone() ? !r.value().isEmpty() : r.value().isEmpty() || r.value().length() > valueBytesMax) {
            return "its data is empty, too large, or on a tombstone";
        }
        if (!r.binding().isEmpty() || !r.secret().isEmpty()) {
            return "an owned record holds no binding and no secret";
        }
        if (checkSignature && !OwnerSignatures.verifies(s, r.tombstone() ? SignedOp.REMOVE : SignedOp.PUT,
                namespace, r.key(), version(r).dataHash())) {
            return "its owner's signature does not verify";
        }
        return null;
    }

    /**
     * Why an owned record's signed expiry is refused at {@code nowMillis}, or null: already past, or more than the
     * longest TTL plus {@code slackMillis} (the clocks' disagreement) ahead: nobody may store for longer than any put
     * could.
     */
    static String expiryProblem(OwnerStamp s, long nowMillis, int ttlSecondsMax, long slackMillis) {
        long expiresAt = s.expiresAtMillis();
        if (expiresAt <= nowMillis) {
            return "its signed expiry " + s.expiresAtSeconds() + " has passed";
        }
        if (expiresAt > nowMillis + ttlSecondsMax * 1000L + slackMillis) {
            return "its signed expiry " + s.expiresAtSeconds() + " is more than the longest TTL (" + ttlSecondsMax
                    + " s) ahead";
        }
        return null;
    }

    /**
     * A copy another replica sent, as this node would store it, or null: its expiry is signed, so one out of bounds
     * (judged only once this node's clock has {@code settled}, as {@link LocalReplica#readable} judges) is refused,
     * not capped; its form is checked, its signature not yet (that is done where it is written, off the loop).
     */
    static StoredRecord readable(ReplicaRecord r, NodeConfig config, long nowMillis, boolean settled) {
        if (r.valueHash().length() != StoredRecord.HASH_BYTES || !r.binding().isEmpty() || !r.secret().isEmpty()
                || r.tombstone() && !r.value().isEmpty()) {
            return null;
        }
        // The root took it within S of its clock; this node's clock may lag the root's by 2 S.
        if (settled && expiryProblem(r.stamp(), nowMillis, config.ttlSecondsMax(),
                2 * ExpiryClock.SPREAD_BOUND_MILLIS) != null) {
            return null;
        }
        StoredRecord owned = new StoredRecord(r.key(), r.valueHash(), r.value(), r.stamp().expiresAtMillis(),
                r.binding(), r.secret(), r.tombstone(), r.stamp());
        return formProblem(owned, config.namespace(), config.valueBytesMax(), false) == null ? owned : null;
    }

    /**
     * The owner's own write of {@code incoming} at the root, which holds {@code held} (null: nothing): refused as
     * FORBIDDEN when its form, signature or expiry fails; as PRECONDITION_FAILED when its {@code condition} does not
     * hold, unless the version held is this one (a swap retried after it succeeded); else as {@link #write} says.
     */
    static Written rootWrite(StoredRecord held, StoredRecord incoming, PutCondition condition, NodeConfig config,
                             long nowMillis) {
        String problem = formProblem(incoming, config.namespace(), config.valueBytesMax(), true);
        problem = problem != null ? problem
                : expiryProblem(incoming.stamp(), nowMillis, config.ttlSecondsMax(), ExpiryClock.SPREAD_BOUND_MILLIS);
        if (problem != null) {
            return new Written(new WriteVerdict(Status.FORBIDDEN, "refused: " + problem, null), null);
        }
        OwnedVersion have = held == null || !held.isOwned() ? null : version(held);
        boolean retried = have != null && have.sameContent(version(incoming));
        String unmet = retried ? null : unmet(condition, have);
        if (unmet != null) {
            return new Written(new WriteVerdict(Status.PRECONDITION_FAILED, unmet, have == null ? null : have.seq()),
                    null);
        }
        return write(held, incoming);
    }

    /** Why {@code condition} does not hold of {@code have} (null: nothing held), or null when it holds. */
    private static String unmet(PutCondition condition, OwnedVersion have) {
        return switch (condition.kind()) {
            case NONE -> null;
            case ABSENT -> have == null || have.removed() ? null
                    : "a value is held (sequence " + Long.toUnsignedString(have.seq()) + ")";
            case SEQ -> have != null && !have.removed() && have.seq() == condition.seq() ? null
                    : (have == null || have.removed() ? "no value is held" : "sequence "
                    + Long.toUnsignedString(have.seq()) + " is held") + ", not "
                    + Long.toUnsignedString(condition.seq());
        };
    }

    /**
     * What the owner's own write of {@code incoming} does at the root, which holds {@code held} (null: nothing): the
     * verdict, and the record to write (null: none).
     */
    static Written write(StoredRecord held, StoredRecord incoming) {
        OwnedVersion have = held == null || !held.isOwned() ? null : version(held);
        return switch (OwnedRule.write(have, version(incoming))) {
            case STORE -> new Written(WriteVerdict.STORED, incoming);
            case SAME -> new Written(WriteVerdict.STORED, null);
            case CONFLICT -> conflict("sequence " + Long.toUnsignedString(have.seq())
                    + " is held with other content: sign a higher one", have);
            case STALE -> conflict("sequence " + Long.toUnsignedString(have.seq()) + " is held, above this one",
                    have);
            case SHORT_TOMBSTONE -> conflict("a remove must not expire before the value it removes ("
                    + have.expiresAtSeconds() + ")", have);
        };
    }

    private static Written conflict(String detail, OwnedVersion held) {
        return new Written(new WriteVerdict(Status.CONFLICT, detail, held.seq()), null);
    }

    /** The records of {@code records} that are unowned or whose owner signed them (a pure check: off the loop). */
    static List<StoredRecord> signed(List<StoredRecord> records, String namespace, int valueBytesMax) {
        List<StoredRecord> out = new ArrayList<>(records.size());
        for (StoredRecord r : records) {
            if (!r.isOwned() || formProblem(r, namespace, valueBytesMax, true) == null) {
                out.add(r);
            }
        }
        return out;
    }

    /** A write's verdict and what it writes. */
    record Written(WriteVerdict verdict, StoredRecord toWrite) {
    }

    /**
     * A copy {@code incoming} meets {@code held} (null: nothing), one of them owned: the greater version is written;
     * one equal to what is held counts as stored. An unowned copy never replaces an owned record, and an owned one
     * replaces an unowned record under its slot's name: no value's bytes hash to that name, so only a forged
     * tombstone can be there, and it must not keep the owner's value out.
     */
    static TombstoneRule.Outcome copy(StoredRecord held, StoredRecord incoming) {
        if (!incoming.isOwned()) {
            return TombstoneRule.Outcome.REFUSED;
        }
        if (held == null || !held.isOwned() || OwnedRule.supersedes(version(incoming), version(held))) {
            return TombstoneRule.Outcome.write(incoming);
        }
        return version(held).sameContent(version(incoming)) ? TombstoneRule.Outcome.UNCHANGED
                : TombstoneRule.Outcome.REFUSED;
    }
}
