package io.rattan.core.node;

/**
 * What a node's repair has done over its life, for metrics, and the sessions running now.
 *
 * @param pagesSent        pages of copies sent to peers, resends included
 * @param pagesResent      of them, pages sent again (unacknowledged, or the peer answered again after a cut)
 * @param recordsAcked     copies peers acknowledged
 * @param bytesSent        bytes of the copies sent
 * @param recordsAbandoned copies owed to peers that left before acknowledging them
 * @param sessionsRunning  repair sessions running now (a gauge, not a total)
 */
public record RepairTotals(long pagesSent, long pagesResent, long recordsAcked, long bytesSent,
                           long recordsAbandoned, int sessionsRunning) {

    /** Nothing done yet. */
    public static final RepairTotals NONE = new RepairTotals(0, 0, 0, 0, 0, 0);
}
