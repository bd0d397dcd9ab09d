package io.rattan.node.transport;

import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.net.Contact;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code Hello} every outbound connection opens with, and the addresses that left one unanswered.
 *
 * <p>It exists so that an address where no Rattan node listens (a victim named in a forged request) draws at most one
 * {@code Hello} per {@link NettyTransport#HELLO_INTERVAL_NANOS} from this node: both {@link NettyTransport#send} and
 * {@link NettyTransport#challenge} ask {@link #recentlyUnanswered} before they dial, and a connection records its
 * hello here and clears it once welcomed. At most {@link NettyTransport#UNANSWERED_MAX} addresses are remembered,
 * the oldest forgotten first, so the memory is bounded whatever a stranger names. The map is confined to the node's
 * loop; the frame is set once, on any thread, before the first send.
 */
final class HelloThrottle {

    private volatile byte[] frame;
    // When a Hello went to an address that has not welcomed us since; insertion order, so the oldest go first.
    private final Map<Address, Long> unanswered = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Address, Long> eldest) {
            return size() > NettyTransport.UNANSWERED_MAX;
        }
    };

    /**
     * Sets the {@code Hello} that names this node: in the oldest version {@code codec} accepts, so that a listener of
     * that version reads it too, with the newest this node speaks as its request id ({@link PeerVersions}).
     */
    void frame(Contact self, MessageCodec codec) {
        int oldest = codec.oldestAccepted();
        this.frame = codec.at(oldest).encode(new Envelope(self, codec.version(), new Hello(oldest)));
    }

    /** The encoded {@code Hello} frame body, or null before {@link NettyTransport#identity(Contact)}. */
    byte[] frame() {
        return frame;
    }

    /** A {@code Hello} went to {@code to}; the first one since its last welcome starts the interval. */
    void sent(Address to) {
        unanswered.putIfAbsent(to, System.nanoTime());
    }

    /** {@code to} welcomed this node: it may be dialed again at once. */
    void answered(Address to) {
        unanswered.remove(to);
    }

    /** Whether {@code to} left a {@code Hello} unanswered less than the interval ago. */
    boolean recentlyUnanswered(Address to) {
        Long at = unanswered.get(to);
        if (at == null) {
            return false;
        }
        if (System.nanoTime() - at >= NettyTransport.HELLO_INTERVAL_NANOS) {
            unanswered.remove(to);
            return false;
        }
        return true;
    }
}
