package io.rattan.node;

import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Scheduler;

/**
 * The node's timers on a slow node ({@link InboundStall}): a timer that falls due while input is queued runs once
 * that input has been handled, as the simulator's slow nodes run theirs. Without it a slow node kept probing and
 * exchanging on time while its own answers queued, so its queue grew without end where the simulator's did not.
 * A timer cancelled while it waits does not run. Tasks handed to {@link #execute} are not timers and run as before.
 */
final class StalledTimers implements Scheduler {

    private final Scheduler loop;
    private final InboundStall stall;

    StalledTimers(Scheduler loop, InboundStall stall) {
        this.loop = loop;
        this.stall = stall;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        boolean[] cancelled = {false};
        Cancellable timer = loop.schedule(delayNanos, () -> stall.afterQueue(() -> {
            if (!cancelled[0]) {
                task.run();
            }
        }));
        return () -> {
            cancelled[0] = true;
            timer.cancel();
        };
    }

    @Override
    public void execute(Runnable task) {
        loop.execute(task);
    }
}
