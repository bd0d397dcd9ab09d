package io.rattan.core.node;

import java.util.Comparator;

/**
 * Which version of an owned slot a replica keeps. Two rules, one per way a version arrives:
 * <ul>
 *   <li>{@link #write}: the owner's own put or remove, at the slot's root. A higher sequence is stored; the same
 *       version with a later expiry extends it; the same version again is a success that changes nothing; the same
 *       or a lower sequence with other content is refused, so that the owner learns the current sequence; so is a
 *       remove that expires before the version it replaces (it must outlive it, or a lagging copy could return).</li>
 *   <li>{@link #supersedes}: a copy from another replica (a put's fan-out, repair, a hand-off). Replicas must end
 *       up holding the same version whatever order copies arrive in, so this is a strict total order on versions:
 *       the higher sequence; then a tombstone over a value; then the greater data hash (only an owner who signs two
 *       contents under one sequence gets there); then the later expiry. Every replica keeps the greatest version it
 *       was ever brought, so a lagging replica cannot bring an old sequence back.</li>
 * </ul>
 */
final class OwnedRule {

    /** What a write does to the slot. */
    enum Outcome {
        /** Nothing held, a higher sequence, or the same version with a later expiry: store it. */
        STORE,
        /** The version held already, with an expiry no earlier: a success that stores nothing. */
        SAME,
        /** The same sequence with other content: refused. */
        CONFLICT,
        /** A lower sequence: refused. */
        STALE,
        /** A remove whose expiry ends before the version it removes would: refused, it would not cover it. */
        SHORT_TOMBSTONE
    }

    private static final Comparator<OwnedVersion> ORDER = Comparator
            .comparing(OwnedVersion::seq, Long::compareUnsigned)
            .thenComparing(OwnedVersion::removed)
            .thenComparing(OwnedVersion::dataHash)
            .thenComparingLong(OwnedVersion::expiresAtSeconds);

    private OwnedRule() {
    }

    /** The owner's write {@code incoming} on a slot that holds {@code held} (null: nothing, or only expired). */
    static Outcome write(OwnedVersion held, OwnedVersion incoming) {
        if (held == null) {
            return Outcome.STORE;
        }
        int bySeq = Long.compareUnsigned(incoming.seq(), held.seq());
        if (bySeq > 0) {
            boolean uncovered = incoming.removed() && incoming.expiresAtSeconds() < held.expiresAtSeconds();
            return uncovered ? Outcome.SHORT_TOMBSTONE : Outcome.STORE;
        }
        if (bySeq < 0) {
            return Outcome.STALE;
        }
        if (!incoming.sameContent(held)) {
            return Outcome.CONFLICT;
        }
        return incoming.expiresAtSeconds() > held.expiresAtSeconds() ? Outcome.STORE : Outcome.SAME;
    }

    /**
     * Two versions as repair digests show them, by sequence (unsigned) and then a tombstone over a value: positive
     * when the first is greater. Versions equal here may still differ (an owner who signed two contents under one
     * sequence); digests cannot tell those apart, and a read's repair settles them.
     */
    static int compareDigests(long seq, boolean removed, long otherSeq, boolean otherRemoved) {
        int bySeq = Long.compareUnsigned(seq, otherSeq);
        return bySeq != 0 ? bySeq : Boolean.compare(removed, otherRemoved);
    }

    /** Whether a copy {@code incoming} replaces {@code held} (null: nothing held). */
    static boolean supersedes(OwnedVersion incoming, OwnedVersion held) {
        return held == null || ORDER.compare(incoming, held) > 0;
    }
}
