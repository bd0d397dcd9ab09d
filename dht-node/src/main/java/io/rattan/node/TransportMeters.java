package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.core.msg.MessageType;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener.Refusal;
import io.rattan.node.netty.TransportListener.RefusalReason;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters of the node's connections, one {@link TransportListener} per protocol (tag {@code protocol} =
 * peer|client|http): {@code rattan.transport.bytes.sent}, {@code rattan.transport.bytes.received},
 * {@code rattan.transport.frames.rejected} and {@code rattan.limits.refused} (tag {@code reason}); and across
 * protocols {@code rattan.transport.frames.dropped} (tag {@code reason}), {@code rattan.peer.frames.refused} (tag
 * {@code reason}) and {@code rattan.messages.sent} (tag {@code type}). Thread-safe.
 */
final class TransportMeters {

    private final MeterRegistry registry;
    private final AtomicReferenceArray<Counter> messagesSent =
            new AtomicReferenceArray<>(MessageType.values().length);
    private final AtomicReferenceArray<Counter> framesDropped =
            new AtomicReferenceArray<>(DropReason.values().length);
    private final AtomicReferenceArray<Counter> peerFramesRefused =
            new AtomicReferenceArray<>(RefusalReason.values().length);

    TransportMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counts a message sent to a peer, by type. */
    void messageSent(MessageType type) {
        Counter counter = messagesSent.get(type.ordinal());
        if (counter == null) {
            counter = Counter.builder("rattan.messages.sent")
                    .description("Messages sent to peers, by type")
                    .tag("type", type.name().toLowerCase(Locale.ROOT))
                    .register(registry);
            messagesSent.set(type.ordinal(), counter);
        }
        counter.increment();
    }

    /** A new listener whose meters carry {@code protocol}; registers them at once. */
    TransportListener listener(String protocol) {
        // No base unit: the name already says bytes, and a unit would export rattan_transport_bytes_sent_bytes_total.
        Counter sent = Counter.builder("rattan.transport.bytes.sent")
                .description("Bytes written to sockets, length prefixes included")
                .tag("protocol", protocol).register(registry);
        Counter received = Counter.builder("rattan.transport.bytes.received")
                .description("Bytes read from sockets")
                .tag("protocol", protocol).register(registry);
        Counter rejected = Counter.builder("rattan.transport.frames.rejected")
                .description("Inbound frames refused (undecodable, oversize); each closes its connection")
                .tag("protocol", protocol).register(registry);
        Counter[] refusals = refusalCounters(protocol);
        return new TransportListener() {
            @Override
            public void refused(Refusal refusal) {
                refusals[refusal.ordinal()].increment();
            }

            @Override
            public void bytesSent(long bytes) {
                sent.increment(bytes);
            }

            @Override
            public void bytesReceived(long bytes) {
                received.increment(bytes);
            }

            @Override
            public void frameRejected() {
                rejected.increment();
            }

            @Override
            public void frameDropped(DropReason reason) {
                dropped(reason).increment();
            }

            @Override
            public void peerFrameRefused(RefusalReason reason) {
                peerRefused(reason).increment();
            }
        };
    }

    private Counter dropped(DropReason reason) {
        Counter counter = framesDropped.get(reason.ordinal());
        if (counter == null) {
            counter = Counter.builder("rattan.transport.frames.dropped")
                    .description("Outbound frames dropped without being written")
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .register(registry);
            framesDropped.set(reason.ordinal(), counter);
        }
        return counter;
    }

    private Counter peerRefused(RefusalReason reason) {
        Counter counter = peerFramesRefused.get(reason.ordinal());
        if (counter == null) {
            counter = Counter.builder("rattan.peer.frames.refused")
                    .description("Inbound peer frames the handshake rules kept from the node "
                            + "(unverified or forged sender, bad hello or answer)")
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .register(registry);
            peerFramesRefused.set(reason.ordinal(), counter);
        }
        return counter;
    }

    private Counter[] refusalCounters(String protocol) {
        Counter[] refusals = new Counter[Refusal.values().length];
        for (Refusal r : Refusal.values()) {
            refusals[r.ordinal()] = Counter.builder("rattan.limits.refused")
                    .description("Connections refused or closed and frames dropped to keep within the node's limits")
                    .tag("protocol", protocol)
                    .tag("reason", r.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        return refusals;
    }
}
