package io.rattan.node.transport;

import io.rattan.core.env.Scheduler;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.net.Address;

/**
 * Fault injection: holds every message for a fixed delay before handing it to the real transport, as a slow or
 * distant node would. A fixed delay on one scheduler keeps the order of messages. Called on the node's loop.
 */
public final class DelayedTransport implements Transport {

    private final Scheduler scheduler;
    private final Transport inner;
    private final long delayNanos;

    public DelayedTransport(Scheduler scheduler, Transport inner, long delayNanos) {
        this.scheduler = scheduler;
        this.inner = inner;
        this.delayNanos = delayNanos;
    }

    @Override
    public void send(Address to, Envelope envelope) {
        scheduler.schedule(delayNanos, () -> inner.send(to, envelope));
    }
}
