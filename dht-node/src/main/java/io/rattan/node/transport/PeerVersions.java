package io.rattan.node.transport;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.net.Address;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protocol version this node speaks to each peer, for a rolling upgrade: the newer of the peer's and this node's
 * own, as the peer's {@code Hello} tells it (its request id names the newest version the dialer speaks; a build of
 * version 11 sends 0 there, and speaks only its frame's version). A node's {@code Hello} goes in the oldest version
 * it accepts, which a listener of that version or newer reads, and so does every frame to a peer whose {@code Hello}
 * has not come yet.
 *
 * <p>At most {@link NettyTransport#UNANSWERED_MAX} peers are kept, all forgotten past that (they are learnt again at
 * their next connection, and spoken to as unknown meanwhile). Written by the inbound connections' threads and read on
 * the node's loop, hence concurrent.
 */
final class PeerVersions {

    private final MessageCodec own;
    private final MessageCodec unknown;
    private final Map<Address, MessageCodec> learnt = new ConcurrentHashMap<>();

    PeerVersions(MessageCodec own) {
        this.own = own;
        this.unknown = own.at(own.oldestAccepted());
    }

    /** The newest version a {@code Hello} says its sender speaks: its request id, or its frame's when that is 0. */
    static int newestOf(long helloRequestId, int frameVersion) {
        return helloRequestId > 0 && helloRequestId <= 255 ? (int) helloRequestId : frameVersion;
    }

    /**
     * The peer at {@code from} speaks versions up to {@code newest}: speak the newer it shares with this node from now
     * on. Returns that version, or -1 when there is none (the caller refuses the peer).
     */
    int learn(Address from, int newest) {
        int v = Math.min(own.version(), newest);
        if (!own.accepts(v)) {
            return -1;
        }
        if (learnt.size() >= NettyTransport.UNANSWERED_MAX) {
            learnt.clear();
        }
        learnt.put(from, own.at(v));
        return v;
    }

    /** The codec of the frames to {@code to}: see the class comment. */
    MessageCodec codecFor(Address to) {
        MessageCodec c = learnt.get(to);
        return c != null ? c : unknown;
    }

    /** Peers known to speak an older version than this node's own. */
    int olderCount() {
        int n = 0;
        for (MessageCodec c : learnt.values()) {
            if (c.version() < own.version()) {
                n++;
            }
        }
        return n;
    }
}
