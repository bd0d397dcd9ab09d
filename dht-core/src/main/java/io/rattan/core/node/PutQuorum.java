package io.rattan.core.node;

import io.rattan.api.Status;
import io.rattan.core.msg.RequestMessages.PutReply;
import java.util.function.Consumer;

/**
 * Counts a put's copies until it is decided: acknowledged once {@code needed} distinct replicas hold it (the root's
 * own write is one, unless its clock judges it expired), refused once every replica asked has answered or given up
 * short of that. Decides once; later answers change nothing.
 */
final class PutQuorum {

    private final int needed;
    private final Consumer<PutReply> decided;
    private int acks;
    private int outstanding;
    private boolean done;
    /** The first storage fault a replica answered with (its own or a peer's), or null. */
    private Status storageFault;

    PutQuorum(int needed, Consumer<PutReply> decided) {
        this.needed = needed;
        this.decided = decided;
    }

    /** A replica was asked for a copy. */
    void asked() {
        outstanding++;
    }

    /** A replica asked for a copy answered ({@code stored} true when it holds it) or timed out. */
    void answered(boolean stored) {
        outstanding--;
        if (stored) {
            acks++;
        }
        check();
    }

    /**
     * A replica could not write: its store failed with {@code fault} ({@link Status#STORAGE_FULL} or
     * {@link Status#IO_ERROR}). The put still succeeds if the others make W; if not, it fails with that status.
     */
    void failed(Status fault) {
        if (storageFault == null) {
            storageFault = fault;
        }
        answered(false);
    }

    /** Whether the put is decided (acknowledged or refused): later answers change nothing. */
    boolean isDecided() {
        return done;
    }

    /** Decides if the copies so far are enough, or if no answer is left to wait for. */
    void check() {
        if (done) {
            return;
        }
        if (acks >= needed) {
            done = true;
            decided.accept(new PutReply(Status.OK, acks, ""));
        } else if (outstanding == 0) {
            done = true;
            String why = "only " + acks + " of " + needed + " replicas acknowledged";
            decided.accept(storageFault == null ? new PutReply(Status.UNAVAILABLE, acks, why)
                    : new PutReply(storageFault, acks, why + "; a replica answered " + storageFault));
        }
    }
}
