package io.rattan.node.transport;

import io.rattan.api.Address;
import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Holds each frame for its destination's delay ({@link PeerDelays}) before handing it to the real transport, as a
 * slow or distant node would. Frames to one peer leave in the order they were sent, as on one TCP connection: one
 * that is due earlier than a frame sent before it (a smaller jitter draw) waits for that frame. A frame with no delay
 * to a peer with nothing held goes straight through, and one due just after the frame before it leaves with that one
 * ({@link #SAME_BURST_NANOS}). Called on the node's loop only.
 */
public final class DelayedTransport implements Transport {

    /**
     * Frames to one peer due this close after the one whose timer fired leave with it. A node answers a routed get
     * with a hop acknowledgement and, a moment later, the reply; without this the reply needs a wake-up of its own,
     * which costs a loaded machine a millisecond or more, far more than sending it this early.
     */
    static final long SAME_BURST_NANOS = 200_000;

    private final Scheduler scheduler;
    private final Clock clock;
    private final Transport inner;
    private final PeerDelays delays;
    // Only peers with frames held: an entry goes when its last frame leaves, so the map is bounded by what is in
    // flight, not by every peer ever sent to.
    private final Map<Address, HeldFrames> held = new HashMap<>();

    public DelayedTransport(Scheduler scheduler, Clock clock, Transport inner, PeerDelays delays) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.inner = Objects.requireNonNull(inner, "inner");
        this.delays = Objects.requireNonNull(delays, "delays");
    }

    @Override
    public void send(Address to, Envelope envelope) {
        long delayNanos = delays.delayNanos(to);
        HeldFrames frames = held.get(to);
        if (frames == null) {
            if (delayNanos <= 0) {
                inner.send(to, envelope);
                return;
            }
            frames = new HeldFrames(to);
            held.put(to, frames);
        }
        frames.add(clock.nanoTime() + Math.max(0, delayNanos), envelope);
    }

    /** A frame held, and when it may leave. */
    private record Held(long dueNanos, Envelope envelope) {
    }

    /**
     * The frames held for one peer, in send order; one timer, for the first. A frame's due time is never earlier
     * than the one before it, so frames leave in the order they were sent.
     */
    private final class HeldFrames {
        private final Address to;
        private final ArrayDeque<Held> frames = new ArrayDeque<>();
        private long lastDueNanos = Long.MIN_VALUE;

        HeldFrames(Address to) {
            this.to = to;
        }

        void add(long dueNanos, Envelope envelope) {
            lastDueNanos = Math.max(lastDueNanos, dueNanos);
            frames.add(new Held(lastDueNanos, envelope));
            if (frames.size() == 1) {
                scheduler.schedule(lastDueNanos - clock.nanoTime(), this::release);
            }
        }

        /**
         * Sends the first frame, whose timer this is, and every later one due within {@link #SAME_BURST_NANOS}, then
         * sets the timer for the next. The first goes even if this clock reads a little before its due time: the
         * timer ran by the scheduler's clock, which need not agree with this one to the nanosecond.
         */
        private void release() {
            long now = clock.nanoTime();
            do {
                inner.send(to, frames.poll().envelope());
            } while (!frames.isEmpty() && frames.peek().dueNanos() <= now + SAME_BURST_NANOS);
            if (frames.isEmpty()) {
                held.remove(to);
            } else {
                scheduler.schedule(Math.max(0, frames.peek().dueNanos() - now), this::release);
            }
        }
    }
}
