package io.rattan.core.node;

import io.rattan.core.env.Cancellable;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;

/**
 * A request to one peer that tells a late answer from a lost one. When the peer's RTO passes without an answer, the
 * peer is suspected (and probed, as after any timeout) and {@code onLate} runs, so that the caller may turn to another
 * node at once; but the answer is still awaited until {@code giveUpNanos} and counts if it comes.
 *
 * <p>Why: right after a cluster starts, 8 to 16 JVMs loading and compiling on 2 cores stall each other's event loops
 * for hundreds of milliseconds. At the RTO's floor (100 ms) a put's hop or replica "timed out" while it was only slow,
 * and the put was refused in a healthy cluster ("no reachable node closer to the key", "only 1 of 2 replicas
 * acknowledged"): 59 of 500 puts over 5 starts of 8 processes. Owned by the node's event loop.
 */
final class PatientRequest {

    private final NodeContext ctx;
    private final Membership members;
    private final Contact to;
    private final Runnable onLate;
    private final ReplyHandler handler;
    private Cancellable lateTimer;
    private boolean late;
    private boolean done;

    private PatientRequest(NodeContext ctx, Membership members, Contact to, Runnable onLate, ReplyHandler handler) {
        this.ctx = ctx;
        this.members = members;
        this.to = to;
        this.onLate = onLate;
        this.handler = handler;
    }

    /**
     * Sends {@code body} to {@code to}. {@code handler} sees the answer if it comes within {@code giveUpNanos}, else
     * the timeout; {@code onLate} runs once, before either, when the peer's RTO passes first (or with the timeout, when
     * the RTO is not shorter than the give-up time).
     */
    static void send(NodeContext ctx, Membership members, Contact to, Message body, long giveUpNanos,
                     Runnable onLate, ReplyHandler handler) {
        PatientRequest r = new PatientRequest(ctx, members, to, onLate, handler);
        long rto = members.rtoNanos(to.id());
        ctx.outbox().request(to, body, Math.max(rto, giveUpNanos), ReplyHandler.of(r::answered, r::gaveUp));
        if (!r.done && rto < giveUpNanos) {
            r.lateTimer = ctx.scheduler().schedule(rto, r::rtoPassed);
        }
    }

    private void answered(Envelope reply) {
        finish();
        handler.onReply(reply);
    }

    private void gaveUp() {
        finish();
        markLate();
        handler.onTimeout();
    }

    private void rtoPassed() {
        if (!done && !ctx.stopped()) {
            markLate();
        }
    }

    private void finish() {
        done = true;
        if (lateTimer != null) {
            lateTimer.cancel();
        }
    }

    private void markLate() {
        if (!late) {
            late = true;
            members.peerTimedOut(to);
            onLate.run();
        }
    }
}
