package io.rattan.node;

import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The slow-node hook: makes the node a FIFO server that takes an extra delay, drawn from the period's distribution,
 * for each input whose service starts in one of its slow periods (peer messages and client requests alike), or drops
 * an input that arrives in one. Input behind a delayed one waits its turn, as in the simulator's slow-node model, so
 * peers see the slowness in their RTT estimates. Off (every input handled at once) outside the periods and when no
 * period is given. Confined to the node's event loop.
 */
final class InboundStall {

    private record Waiting(long dueNanos, Runnable work) {
    }

    private final List<SlowPeriod> periods;
    private long armedAtNanos;
    private final EventLoop loop;
    private final RandomGenerator random;
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private long busyUntilNanos = Long.MIN_VALUE;

    /** {@code armedAtNanos} is the loop's {@code System.nanoTime()} at which the periods' time 0 falls. */
    InboundStall(List<SlowPeriod> periods, long armedAtNanos, EventLoop loop, RandomGenerator random) {
        this.periods = List.copyOf(periods);
        this.armedAtNanos = armedAtNanos;
        this.loop = loop;
        this.random = random;
    }

    /**
     * Makes the periods count from {@code armedAtNanos} (the loop's {@code System.nanoTime()}) from now on, e.g. from
     * the start of an experiment that runs long after the node started; input already waiting keeps its turn.
     */
    void arm(long armedAtNanos) {
        this.armedAtNanos = armedAtNanos;
    }

    /**
     * Runs {@code work} now, or after the delay the slow periods give it, or never (a drop). A drop is decided by the
     * periods covering its arrival, the delay by those covering the start of its service, as in the simulator: a
     * backlog left at a period's end is served at the healthy rate.
     */
    void submit(Runnable work) {
        long now = System.nanoTime();
        long start = Math.max(now, busyUntilNanos);
        long extra = 0;
        for (SlowPeriod p : periods) {
            Distribution effect = p.extra();
            if (effect.dropProbability() > 0 && covers(p, now) && random.nextDouble() < effect.dropProbability()) {
                return;
            }
            if (effect.delays() && covers(p, start)) {
                extra += effect.sampleNanos(random);
            }
        }
        if (extra == 0 && queue.isEmpty() && now >= busyUntilNanos) {
            work.run();
            return;
        }
        long due = start + extra;
        busyUntilNanos = due;
        queue.add(new Waiting(due, work));
        loop.schedule(this::drain, Math.max(0, due - now), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs a timer's {@code work} now, or once every input that arrived before it has been handled: a slow node's
     * timers wait behind its queue, as the simulator's do, and take no time of their own.
     */
    void afterQueue(Runnable work) {
        long now = System.nanoTime();
        if (queue.isEmpty() && now >= busyUntilNanos) {
            work.run();
            return;
        }
        long due = Math.max(now, busyUntilNanos);
        queue.add(new Waiting(due, work));
        loop.schedule(this::drain, due - now, TimeUnit.NANOSECONDS);
    }

    private boolean covers(SlowPeriod p, long nanoTime) {
        return p.covers(nanoTime - armedAtNanos);
    }

    private void drain() {
        long now = System.nanoTime();
        while (!queue.isEmpty() && queue.peek().dueNanos() <= now) {
            queue.poll().work().run();
        }
    }
}
