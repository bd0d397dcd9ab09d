package io.rattan.core.node;

/**
 * What a node's repair has done over its life, for metrics: pages of copies sent (and of them sent again), copies
 * its peers acknowledged, bytes sent, copies dropped with peers that left before acknowledging them, and the
 * sessions running now.
 */
public record RepairTotals(long pagesSent, long pagesResent, long recordsAcked, long bytesSent,
                           long recordsAbandoned, int sessionsRunning) {

    /** Nothing done yet. */
    public static final RepairTotals NONE = new RepairTotals(0, 0, 0, 0, 0, 0);
}
