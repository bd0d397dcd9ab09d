package io.rattan.core.node;

import io.rattan.api.Status;

/**
 * What a root's own write of a put came to: stored (or held already), or refused with a status and why; for an
 * owned value refused as {@link Status#CONFLICT} or {@link Status#PRECONDITION_FAILED}, the sequence held.
 *
 * @param refused    null when stored; else the put's status
 * @param detail     why, for the put's reply
 * @param currentSeq the sequence of the owned value held (unsigned) when refused for it; null when none is held or
 *                   the refusal is of another kind
 */
record WriteVerdict(Status refused, String detail, Long currentSeq) {

    static final WriteVerdict STORED = new WriteVerdict(null, "", null);

    boolean stored() {
        return refused == null;
    }
}
