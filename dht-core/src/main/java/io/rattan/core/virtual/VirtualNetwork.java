package io.rattan.core.virtual;

import io.rattan.api.Address;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * An in-memory network on the virtual scheduler. Delivery is FIFO per link, as TCP gives, after the latency model's
 * delay; a message to an address nobody listens on (a killed node) vanishes. Every delivered message folds into a
 * trace hash, so two runs can be compared event for event.
 *
 * <p>As the real transport's handshake does, the network refuses a message whose claimed sender is not the address
 * it was truly sent from: it is dropped before it reaches the receiver.
 */
public final class VirtualNetwork {

    /** Observes every message sent, for cost accounting and traces. */
    public interface Observer {
        void sent(Address from, Address to, Envelope envelope);
    }

    /**
     * Faults on the links, for the fault simulator: asked once for each message sent, after the latency model (which
     * may lose it first). The faults draw from their own random source, but a lost message skips the latency model
     * and a duplicate draws it twice, so a run with faults takes other latency draws than one without; each is
     * still fixed by its seed. Without faults installed the network asks nothing.
     */
    public interface LinkFaults {
        /** How many copies of this message arrive: 0 (lost: a partition or a drop), 1, or 2 (duplicated). */
        int copies(Address from, Address to);

        /** Delay this copy waits on top of the latency model's. */
        long extraDelayNanos(Address from, Address to);

        /** Whether this copy may overtake messages sent before it on its link (no FIFO). */
        boolean reorders(Address from, Address to);
    }

    /**
     * Liars, for the fault simulator: asked for every message delivered to a listening address, after it counted in
     * the trace hash. A liar that answers a message itself (and sends what it likes through {@link #transportFor})
     * consumes it: the node at that address never sees it. Without interception installed the network asks nothing.
     */
    public interface Interception {
        /** Whether the message was taken before the node at {@code to} saw it. */
        boolean consumes(Address to, Envelope envelope);
    }

    /**
     * One address: its link number and its receiver (null while nobody listens). A transport holds its own
     * endpoint and a message the endpoint it goes to, so sending and delivering look up no map.
     */
    private static final class Endpoint {
        final Address address;
        final int link;
        Consumer<Envelope> receiver;

        Endpoint(Address address, int link) {
            this.address = address;
            this.link = link;
        }
    }

    private final VirtualScheduler scheduler;
    private final LatencyModel latency;
    private final RandomGenerator random;
    // Looked up only; iteration order never matters.
    private final Map<Address, Endpoint> endpoints = new HashMap<>();
    // The delivery time of the last message sent on each link. Once that time has passed it no longer holds a new
    // message back (no message is delivered before it is sent), so such entries are dropped when the map fills.
    private final LongLongMap lastDelivery = new LongLongMap();
    private Observer observer = (from, to, e) -> { };
    private LinkFaults faults;
    private Interception interception;
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

    /** Installs faults on every link from now on; null removes them. */
    public void faults(LinkFaults linkFaults) {
        this.faults = linkFaults;
    }

    /** Installs liars on every delivery from now on; null removes them. */
    public void interception(Interception liars) {
        this.interception = liars;
    }

    /** Starts delivering messages for {@code address} to {@code receiver}. */
    public void listen(Address address, Consumer<Envelope> receiver) {
        endpoint(address).receiver = receiver;
    }

    /** Stops delivering to {@code address}: messages in flight to it are lost, as when a host dies. */
    public void unlisten(Address address) {
        Endpoint e = endpoints.get(address);
        if (e != null) {
            e.receiver = null;
        }
    }

    public boolean isListening(Address address) {
        Endpoint e = endpoints.get(address);
        return e != null && e.receiver != null;
    }

    /** The transport a node at {@code self} sends through. */
    public Transport transportFor(Address self) {
        Endpoint from = endpoint(self);
        return (to, envelope) -> send(from, to, envelope);
    }

    private Endpoint endpoint(Address address) {
        Endpoint e = endpoints.get(address);
        if (e == null) {
            e = new Endpoint(address, endpoints.size());
            endpoints.put(address, e);
        }
        return e;
    }

    private void send(Endpoint fromEndpoint, Address to, Envelope envelope) {
        Address from = fromEndpoint.address;
        sent++;
        observer.sent(from, to, envelope);
        if (envelope.sender() != null && !envelope.sender().address().equals(from)) {
            return;
        }
        if (latency.drops(from, to, random)) {
            dropped++;
            return;
        }
        if (faults != null) {
            sendWithFaults(fromEndpoint, to, envelope);
            return;
        }
        long now = scheduler.nanoTime();
        long at = now + latency.delayNanos(from, to, random);
        Endpoint toEndpoint = endpoint(to);
        at = inLinkOrder(fromEndpoint, toEndpoint, at, now);
        scheduler.schedule(at - now, () -> deliver(fromEndpoint, toEndpoint, envelope));
    }

    /** When a message due {@code at} arrives on its link: no earlier than the one sent before it (FIFO links). */
    private long inLinkOrder(Endpoint from, Endpoint to, long at, long now) {
        long link = ((long) from.link << 32) | to.link;
        long last = lastDelivery.get(link, Long.MIN_VALUE);
        long arrives = Math.max(at, last);
        lastDelivery.put(link, arrives, now);
        return arrives;
    }

    private void sendWithFaults(Endpoint fromEndpoint, Address to, Envelope envelope) {
        Address from = fromEndpoint.address;
        int copies = faults.copies(from, to);
        if (copies <= 0) {
            return;
        }
        Endpoint toEndpoint = endpoint(to);
        long now = scheduler.nanoTime();
        for (int i = 0; i < copies; i++) {
            long at = now + latency.delayNanos(from, to, random) + faults.extraDelayNanos(from, to);
            if (!faults.reorders(from, to)) {
                at = inLinkOrder(fromEndpoint, toEndpoint, at, now);
            }
            scheduler.schedule(at - now, () -> deliver(fromEndpoint, toEndpoint, envelope));
        }
    }

    private void deliver(Endpoint from, Endpoint to, Envelope envelope) {
        Consumer<Envelope> receiver = to.receiver;
        if (receiver == null) {
            return;
        }
        delivered++;
        long h = traceHash;
        h = 31 * h + scheduler.nanoTime();
        h = 31 * h + from.address.port();
        h = 31 * h + to.address.port();
        h = 31 * h + envelope.body().type().tag();
        h = 31 * h + envelope.requestId();
        traceHash = h;
        if (interception != null && interception.consumes(to.address, envelope)) {
            return;
        }
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
