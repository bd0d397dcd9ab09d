package io.rattan.node.transport;

import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protocol version this node writes to each peer, for a rolling upgrade: the older of the peer's newest and this
 * node's own, as the peer's {@code Hello} said (its request id names the newest version the dialer speaks; the previous
 * release, protocol 11, sends 0 there, and speaks only its frame's version). A peer's version is taken only once it
 * has proven the address its {@code Hello} claimed, or from the {@code Welcome} of this node's own connection to the
 * peer (whose request id names it the same way), and forgotten when that connection closes (its next connection
 * brings a new one: after an upgrade, or a rollback). A node's {@code Hello} and its handshake frames go in the oldest
 * version it reads; frames waiting for a connection's {@code Welcome} are encoded once it comes, in the version it
 * named.
 *
 * <p>At most {@link #PEERS_MAX} peers are kept, all forgotten past that (they are learnt again at their next
 * connection, and written to in the oldest version meanwhile). Written on the node's loop and read by the metrics
 * thread too, hence concurrent.
 */
final class PeerVersions {

    /** Most peers whose version is kept. */
    static final int PEERS_MAX = 4096;

    private final MessageCodec own;
    private final MessageCodec oldest;
    private final Map<Address, Taught> learnt = new ConcurrentHashMap<>();
    // The oldest version taken from a dialer: with proofs required, the first whose answers prove an id.
    private volatile int floor;

    /**
     * What one connection taught: the codec to write to its peer. Compared by identity, so that a connection that
     * closes forgets only its own lesson, never one a later or parallel connection taught.
     */
    static final class Taught {
        final MessageCodec codec;

        private Taught(MessageCodec codec) {
            this.codec = codec;
        }
    }

    PeerVersions(MessageCodec own) {
        this.own = own;
        this.oldest = own.at(own.oldestAccepted());
    }

    /** This node's own codec. */
    MessageCodec own() {
        return own;
    }

    /** The newest version a {@code Hello} says its sender speaks: its request id, or its frame's when that is 0. */
    static int newestOf(long helloRequestId, int frameVersion) {
        return helloRequestId > 0 && helloRequestId <= 255 ? (int) helloRequestId : frameVersion;
    }

    /**
     * Takes from now on only peers that share a version with proofs of their ids ({@link IdProofs#SINCE}), when this
     * node speaks one (every version from 13 on does).
     */
    void requireProofs() {
        floor = own.version() >= IdProofs.SINCE ? IdProofs.SINCE : 0;
    }

    /** Whether a peer of {@code version} (a {@link #shared} one) is refused as unable to prove its id. */
    boolean unprovable(int version) {
        return version < floor;
    }

    /** The version this node would speak to a peer whose newest is {@code newest}, or -1 when they share none. */
    int shared(int newest) {
        int v = Math.min(own.version(), newest);
        return own.accepts(v) ? v : -1;
    }

    /** The proven peer at {@code from} is written to in {@code version} (a {@link #shared} one) from now on. */
    Taught learn(Address from, int version) {
        if (learnt.size() >= PEERS_MAX) {
            learnt.clear();
        }
        Taught t = new Taught(own.at(version));
        learnt.put(from, t);
        return t;
    }

    /** The connection that taught {@code taught} for {@code from} closed: unless another taught since, forget it. */
    void forget(Address from, Taught taught) {
        learnt.remove(from, taught);
    }

    /** The codec of the frames to {@code to}: see the class comment. */
    MessageCodec codecFor(Address to) {
        Taught t = learnt.get(to);
        return t != null ? t.codec : oldest;
    }

    /** The codec of handshake frames: the oldest version this node reads, which any peer it can speak to reads. */
    MessageCodec handshake() {
        return oldest;
    }

    /** Proven peers that speak an older version than this node's own. */
    int olderCount() {
        int n = 0;
        for (Taught t : learnt.values()) {
            if (t.codec.version() < own.version()) {
                n++;
            }
        }
        return n;
    }
}
