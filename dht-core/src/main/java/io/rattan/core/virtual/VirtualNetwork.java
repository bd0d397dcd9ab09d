package io.rattan.core.virtual;

import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.net.Address;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * An in-memory network on the virtual scheduler. Delivery is FIFO per link, as TCP gives, after the latency model's
 * delay; a message to an address nobody listens on (a killed node) vanishes. Every delivered message folds into a
 * trace hash, so two runs can be compared event for event.
 */
public final class VirtualNetwork {

    /** Observes every message sent, for cost accounting and traces. */
    public interface Observer {
        void sent(Address from, Address to, Envelope envelope);
    }

    private final VirtualScheduler scheduler;
    private final LatencyModel latency;
    private final RandomGenerator random;
    // Looked up only; iteration order never matters.
    private final Map<Address, Consumer<Envelope>> endpoints = new HashMap<>();
    private final Map<Long, Long> lastDelivery = new HashMap<>();
    private final Map<Address, Integer> linkIds = new HashMap<>();
    private Observer observer = (from, to, e) -> { };
    private long sent;
    private long delivered;
    private long dropped;
    private long traceHash = 1125899906842597L;

    public VirtualNetwork(VirtualScheduler scheduler, LatencyModel latency, RandomGenerator random) {
        this.scheduler = scheduler;
        this.latency = latency;
        this.random = random;
    }

    public void observer(Observer o) {
        this.observer = o;
    }

    /** Starts delivering messages for {@code address} to {@code receiver}. */
    public void listen(Address address, Consumer<Envelope> receiver) {
        endpoints.put(address, receiver);
        linkIds.computeIfAbsent(address, a -> linkIds.size());
    }

    /** Stops delivering to {@code address}: messages in flight to it are lost, as when a host dies. */
    public void unlisten(Address address) {
        endpoints.remove(address);
    }

    public boolean isListening(Address address) {
        return endpoints.containsKey(address);
    }

    /** The transport a node at {@code self} sends through. */
    public Transport transportFor(Address self) {
        linkIds.computeIfAbsent(self, a -> linkIds.size());
        return (to, envelope) -> send(self, to, envelope);
    }

    private void send(Address from, Address to, Envelope envelope) {
        sent++;
        observer.sent(from, to, envelope);
        if (latency.drops(from, to, random)) {
            dropped++;
            return;
        }
        long at = scheduler.nanoTime() + latency.delayNanos(from, to, random);
        long link = ((long) linkIds.computeIfAbsent(from, a -> linkIds.size()) << 32)
                | linkIds.computeIfAbsent(to, a -> linkIds.size());
        Long last = lastDelivery.get(link);
        if (last != null && last > at) {
            at = last;
        }
        lastDelivery.put(link, at);
        scheduler.schedule(at - scheduler.nanoTime(), () -> deliver(from, to, envelope));
    }

    private void deliver(Address from, Address to, Envelope envelope) {
        Consumer<Envelope> receiver = endpoints.get(to);
        if (receiver == null) {
            return;
        }
        delivered++;
        long h = traceHash;
        h = 31 * h + scheduler.nanoTime();
        h = 31 * h + from.port();
        h = 31 * h + to.port();
        h = 31 * h + envelope.body().type().tag();
        h = 31 * h + envelope.requestId();
        traceHash = h;
        receiver.accept(envelope);
    }

    public long sent() {
        return sent;
    }

    public long delivered() {
        return delivered;
    }

    /** Messages the latency model lost. */
    public long dropped() {
        return dropped;
    }

    /** A hash of every delivery so far: (time, from, to, type, request id), in order. */
    public long traceHash() {
        return traceHash;
    }
}
