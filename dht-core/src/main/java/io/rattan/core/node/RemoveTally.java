package io.rattan.core.node;

import io.rattan.api.Status;
import java.util.function.Consumer;

/**
 * Collects each replica's answer to a remove and, once all are in, the one status the client gets: OK if any
 * replica removed the value; else FORBIDDEN if any refused the secret; else UNAVAILABLE if any declined to look (it
 * did not count the root among the key's replicas, or was not serving: it may hold the value, so the client should
 * retry rather than hear that nothing is there); else NOT_FOUND if any answered; else a storage fault (STORAGE_FULL,
 * IO_ERROR) if a replica answered one; else UNAVAILABLE.
 */
final class RemoveTally {

    private final Status[] results;
    private final Consumer<Status> decided;
    private int outstanding;

    RemoveTally(int replicas, Consumer<Status> decided) {
        this.results = new Status[replicas];
        this.outstanding = replicas;
        this.decided = decided;
    }

    /** Replica {@code slot} answered {@code status} (TIMEOUT when it did not). */
    void answered(int slot, Status status) {
        results[slot] = status;
        if (--outstanding == 0) {
            decided.accept(combine(results));
        }
    }

    static Status combine(Status[] results) {
        boolean forbidden = false;
        boolean declined = false;
        boolean answered = false;
        Status fault = null;
        for (Status s : results) {
            if ((s == Status.STORAGE_FULL || s == Status.IO_ERROR) && fault == null) {
                fault = s;
            }
            if (s == Status.OK) {
                return Status.OK;
            }
            forbidden |= s == Status.FORBIDDEN;
            declined |= s == Status.UNAVAILABLE;
            answered |= s == Status.NOT_FOUND || s == Status.FORBIDDEN;
        }
        return forbidden ? Status.FORBIDDEN : declined ? Status.UNAVAILABLE : answered ? Status.NOT_FOUND
                : fault != null ? fault : Status.UNAVAILABLE;
    }
}
