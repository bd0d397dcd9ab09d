package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.OwnerStamp;
import io.rattan.core.owned.SignedBytes;

/**
 * One version of an owned slot, as the replacement rule sees it.
 *
 * @param seq              the owner's sequence (unsigned)
 * @param removed          true for a tombstone (the owner's signed remove)
 * @param dataHash         SHA-256 of the data ({@link SignedBytes#EMPTY_DATA_HASH} for a tombstone)
 * @param expiresAtSeconds the signed expiry
 */
record OwnedVersion(long seq, boolean removed, Bytes dataHash, long expiresAtSeconds) {

    /** The version a stamp gives data with {@code dataHash} (or a tombstone). */
    static OwnedVersion of(OwnerStamp stamp, boolean removed, Bytes dataHash) {
        return new OwnedVersion(stamp.seq(), removed, dataHash, stamp.expiresAtSeconds());
    }

    /** Same sequence, same kind and same data: the same version, whatever the expiry. */
    boolean sameContent(OwnedVersion o) {
        return seq == o.seq && removed == o.removed && dataHash.equals(o.dataHash);
    }
}
