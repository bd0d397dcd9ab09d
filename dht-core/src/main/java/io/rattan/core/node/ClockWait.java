package io.rattan.core.node;

import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The unowned puts a gateway holds while its expiry clock may not stamp them ({@link ClientRequests#mayStampPuts}): a
 * restarted node until a leaf-set member has answered it, or until its peers confirm a clock known to be off. Each is
 * held for at most half the request timeout, then answered UNAVAILABLE; a put let through goes on with what is left of
 * its timeout. At most {@link #HELD_MAX} are held; more are answered UNAVAILABLE at once. Owned by the event loop.
 */
final class ClockWait {

    /** The most puts held at once: a gateway restarting under load answers the rest at once. */
    static final int HELD_MAX = 1024;
    private static final long CHECK_NANOS = 50_000_000L;

    /** What a held put becomes once let through: started as if it had arrived at {@code arrivedNanos}. */
    interface Release {
        void start(Message put, Consumer<Message> reply, long arrivedNanos);
    }

    private record Held(Message put, Consumer<Message> reply, long arrivedNanos) {
    }

    private final NodeContext ctx;
    private final BooleanSupplier mayStamp;
    private final Runnable askTheTime;
    private final Release release;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private Cancellable check = Cancellable.NONE;

    /**
     * {@code askTheTime} is run when a put is held and none was: the first node of an overlay, which took puts
     * alone, has neighbours once others join, and would otherwise wait for its next period's ping to hear one.
     */
    ClockWait(NodeContext ctx, BooleanSupplier mayStamp, Runnable askTheTime, Release release) {
        this.ctx = ctx;
        this.mayStamp = mayStamp;
        this.askTheTime = askTheTime;
        this.release = release;
    }

    /** Holds {@code put} until the clock may stamp it, or answers it UNAVAILABLE. */
    void hold(Message put, Consumer<Message> reply) {
        if (held.size() >= HELD_MAX) {
            refuse(new Held(put, reply, ctx.now()));
            return;
        }
        held.add(new Held(put, reply, ctx.now()));
        if (held.size() == 1) {
            askTheTime.run();
            check = ctx.scheduler().schedule(CHECK_NANOS, this::recheck);
        }
    }

    private void recheck() {
        if (ctx.stopped()) {
            stop();
            return;
        }
        long maxHeld = ctx.config().requestTimeoutMillis() * 500_000L;
        boolean may = mayStamp.getAsBoolean();
        // Held in arrival order, each for the same time: the first still inside it ends the refusals.
        while (!held.isEmpty() && (may || ctx.now() - held.peek().arrivedNanos() >= maxHeld)) {
            Held h = held.poll();
            if (may) {
                release.start(h.put(), h.reply(), h.arrivedNanos());
            } else {
                refuse(h);
            }
        }
        if (!held.isEmpty()) {
            check = ctx.scheduler().schedule(CHECK_NANOS, this::recheck);
        }
    }

    private void refuse(Held h) {
        ctx.listener().clientRequestDone(h.put().type(), Status.UNAVAILABLE, ctx.now() - h.arrivedNanos(), 0);
        h.reply().accept(new ErrorReply(Status.UNAVAILABLE, "this gateway restarted and its peers have not yet"
                + " confirmed its expiry clock, which may be off: it would stamp the value's expiry wrong; retry"
                + " shortly, or through another gateway"));
    }

    /** The node stopped: every held put is answered, as a stopped node's requests in flight are. */
    void stop() {
        check.cancel();
        while (!held.isEmpty()) {
            Held h = held.poll();
            ctx.listener().clientRequestDone(h.put().type(), Status.UNAVAILABLE, ctx.now() - h.arrivedNanos(), 0);
            h.reply().accept(new ErrorReply(Status.UNAVAILABLE, "node is stopping"));
        }
    }
}
