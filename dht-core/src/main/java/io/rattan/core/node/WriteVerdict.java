package io.rattan.core.node;

import io.rattan.core.msg.Status;

/**
 * What a root's own write of a put came to: stored (or held already), or refused with a status and why; for an
 * owned value refused as {@link Status#CONFLICT}, the sequence held.
 *
 * @param refused    null when stored; else the put's status
 * @param detail     why, for the put's reply
 * @param currentSeq the held sequence of a conflicting owned value (unsigned); else 0
 */
record WriteVerdict(Status refused, String detail, long currentSeq) {

    static final WriteVerdict STORED = new WriteVerdict(null, "", 0);

    boolean stored() {
        return refused == null;
    }
}
