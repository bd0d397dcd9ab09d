package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.env.Cancellable;
import java.util.function.BooleanSupplier;

/**
 * The once-a-second timer of watches (expiries, renewals, leases), which runs only while this node holds a watch as
 * gateway or a registration as replica: a node nobody watches through schedules nothing for them.
 */
final class WatchTicks {

    private final NodeContext ctx;
    private final Runnable tick;
    private final BooleanSupplier active;
    private Cancellable next;

    /** {@code tick} runs once a second while {@code active} holds after it. */
    WatchTicks(NodeContext ctx, Runnable tick, BooleanSupplier active) {
        this.ctx = ctx;
        this.tick = tick;
        this.active = active;
    }

    /** Something to watch appeared: the timer runs if it did not. */
    void ensure() {
        if (next == null && !ctx.stopped()) {
            next = ctx.scheduler().schedule(nanos(Math.min(1_000, ctx.config().watch().renewMillis())), this::run);
        }
    }

    void cancel() {
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    private void run() {
        next = null;
        if (ctx.stopped()) {
            return;
        }
        tick.run();
        if (active.getAsBoolean()) {
            ensure();
        }
    }
}
