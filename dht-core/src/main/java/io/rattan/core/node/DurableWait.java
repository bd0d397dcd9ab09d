package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.env.Cancellable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One wait for this node's writes to become durable ({@link LocalReplica#whenDurable}: with {@code --fsync}, the WAL
 * sync that began after them) that gives up. A disk whose sync never returns would otherwise hold the put or the
 * replica's acknowledgement, and all the request's state, forever. After {@link #boundMillis} (half the request
 * timeout: the gateway, which waits a whole request timeout, still has time to answer with the typed status) it
 * runs {@code gaveUp} instead, counts it ({@link NodeListener#durableWaitGaveUp}), and lets go of both actions, so
 * the store's sync queue keeps only this small object; a sync that returns afterwards finds nothing to run. Owned by
 * the node's event loop.
 */
final class DurableWait {

    private static final Logger log = LoggerFactory.getLogger(DurableWait.class);

    private final NodeContext ctx;
    private final boolean ownCopy;
    private Runnable durable;
    private Runnable gaveUp;
    private Cancellable timer;

    private DurableWait(NodeContext ctx, boolean ownCopy, Runnable durable, Runnable gaveUp) {
        this.ctx = ctx;
        this.ownCopy = ownCopy;
        this.durable = durable;
        this.gaveUp = gaveUp;
    }

    /** How long a put or an acknowledgement waits for a sync: half the request timeout, at least 1 ms. */
    static long boundMillis(NodeConfig config) {
        return Math.max(1, config.requestTimeoutMillis() / 2);
    }

    /**
     * Runs {@code durable} once every write so far is durable, or {@code gaveUp} if that takes longer than
     * {@link #boundMillis}; exactly one of them, on the loop. {@code ownCopy}: the root's own copy of a put (else a
     * replica's acknowledgement of copies), for the log and the metric.
     */
    static void await(NodeContext ctx, LocalReplica replica, boolean ownCopy, Runnable durable, Runnable gaveUp) {
        DurableWait w = new DurableWait(ctx, ownCopy, durable, gaveUp);
        replica.whenDurable(w::synced);
        if (w.durable != null) {
            // Not durable on return (a sync must return first): only then is a timer worth its cost. A store durable
            // on return (in memory, or without --fsync) schedules nothing, so the simulator's runs are unchanged.
            w.timer = ctx.scheduler().schedule(nanos(boundMillis(ctx.config())), w::giveUp);
        }
    }

    private void synced() {
        Runnable action = durable;
        release();
        if (action != null) {
            action.run();
        }
    }

    private void giveUp() {
        Runnable action = gaveUp;
        if (action == null) {
            return;
        }
        release();
        log.warn("{} gave up waiting {} ms for a sync to make {} durable: the disk does not return", ctx.tag(),
                boundMillis(ctx.config()), ownCopy ? "its own copy of a put" : "copies it was sent");
        ctx.listener().durableWaitGaveUp(ownCopy);
        action.run();
    }

    /** Forgets both actions (and what they hold) and the timer: whatever comes later runs nothing. */
    private void release() {
        durable = null;
        gaveUp = null;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
