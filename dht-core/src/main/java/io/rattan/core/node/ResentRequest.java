package io.rattan.core.node;

import io.rattan.core.env.Cancellable;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import java.util.function.ObjLongConsumer;

/**
 * A request that the peer may answer more than once without harm (a repair digest: it only reads; a suspect's probe),
 * sent again while it is unanswered: up to {@link #RESENDS} times, at doubling intervals from a first one, until the
 * request or a resend is answered or the whole wait has passed. The first answer is handed on, with how long it took from the send it
 * answers; the others are ignored. The timeout runs only once the whole wait passed with no answer to any of them,
 * and neither runs after {@link #cancel}.
 *
 * <p>Why: a repair session's wait for an answer is long, because the peer scans a range of its store before it
 * answers ({@link ScanTimeouts}: 5 s at the defaults, doubled after each timeout). With one wait and no resend, a
 * single dropped digest or answer would stall the session for the whole wait and then fail it, while the replica it
 * repairs goes on answering gets without what it lacks (docs/history.md, "A lost digest costs a resend"). Owned by the
 * node's event loop.
 */
final class ResentRequest {

    /** At 10% loss each way a request and its answer are lost one time in five; four in a row, about 1 in 800. */
    static final int RESENDS = 3;

    private final NodeContext ctx;
    private final Contact to;
    private final Message body;
    private final ObjLongConsumer<Envelope> onReply;
    private final Runnable onTimeout;
    private final long deadlineNanos;
    private long intervalNanos;
    private int resends;
    private boolean done;
    private Cancellable timer;

    private ResentRequest(NodeContext ctx, Contact to, Message body, ObjLongConsumer<Envelope> onReply,
                          Runnable onTimeout, long deadlineNanos, long firstIntervalNanos) {
        this.ctx = ctx;
        this.to = to;
        this.body = body;
        this.onReply = onReply;
        this.onTimeout = onTimeout;
        this.deadlineNanos = deadlineNanos;
        this.intervalNanos = firstIntervalNanos;
    }

    /**
     * Sends {@code body} to {@code to} and waits up to {@code waitNanos} for an answer to it or to one of its resends,
     * the first of which goes {@code firstIntervalNanos} after it (each next one twice as long after the last).
     * {@code onReply} gets the first answer and how long it took; {@code onTimeout} runs if none came. The handle
     * returned cancels it.
     */
    static ResentRequest send(NodeContext ctx, Contact to, Message body, long waitNanos, long firstIntervalNanos,
                              ObjLongConsumer<Envelope> onReply, Runnable onTimeout) {
        ResentRequest r = new ResentRequest(ctx, to, body, onReply, onTimeout, ctx.now() + waitNanos,
                Math.max(1, firstIntervalNanos));
        long sent = ctx.now();
        ctx.outbox().request(to, body, waitNanos, ReplyHandler.of(reply -> r.answered(reply, sent), r::timedOut));
        r.scheduleNext();
        return r;
    }

    /**
     * Sends the request again now, if it is still unanswered: its peer answers again after a cut, and the next resend
     * may be seconds away (the intervals double from twice an RTO that the cut backed off).
     */
    void resendNow() {
        if (timer != null) {
            timer.cancel();
        }
        resend();
    }

    /** Nothing more is sent, and neither the answer nor the timeout is handed on. */
    void cancel() {
        finish();
    }

    private void scheduleNext() {
        if (!done && resends < RESENDS && ctx.now() + intervalNanos < deadlineNanos) {
            timer = ctx.scheduler().schedule(intervalNanos, this::resend);
        }
    }

    private void resend() {
        if (done || ctx.stopped()) {
            return;
        }
        resends++;
        long sent = ctx.now();
        // Its own timeout changes nothing: the first request's, at the end of the whole wait, decides.
        ctx.outbox().request(to, body, deadlineNanos - sent, ReplyHandler.of(reply -> answered(reply, sent), () -> { }));
        intervalNanos *= 2;
        scheduleNext();
    }

    private void answered(Envelope reply, long sentNanos) {
        if (finish()) {
            onReply.accept(reply, ctx.now() - sentNanos);
        }
    }

    private void timedOut() {
        if (finish()) {
            onTimeout.run();
        }
    }

    /** Whether this is the first outcome; cancels the next resend. */
    private boolean finish() {
        if (done) {
            return false;
        }
        done = true;
        if (timer != null) {
            timer.cancel();
        }
        return true;
    }
}
