package io.rattan.node.limits;

import java.time.Duration;

/**
 * What a node grants anyone who can reach its ports, on by default (see docs/security.md for the choice of each
 * default and OpenDHT's beside it). Every rate and share may be turned off with {@link #OFF} (-1); connection bounds
 * and timeouts may not, as nothing else bounds the memory a stranger can hold.
 *
 * @param clientRequestsPerSecond  requests per second one source IP may make to the gateways (binary and HTTP
 *                                 together); above it a request is answered {@code RATE_LIMITED} / 429
 * @param peerRequestsPerSecond    frames per second one verified peer (keyed by the node id its connection's
 *                                 handshake proved) may send to the peer port; above it a frame is dropped and counted
 * @param peerIpRequestsPerSecond  frames per second one source IP may send to the peer port on connections whose
 *                                 handshake has not completed (hellos, challenges, answers, and whatever a stranger
 *                                 sends before it); above it a frame is dropped and counted
 * @param clientStorageBytes       the storage share of one source IP at one gateway: value bytes of its puts still
 *                                 alive; a put beyond it is answered {@code QUOTA_EXCEEDED} / 429
 * @param connectionsMax           connections open at once on each port
 * @param connectionsPerIpMax      connections open at once from one IP on each port
 * @param idleMillis               a connection with no traffic for this long is closed (an HTTP one only between
 *                                 requests)
 * @param frameDeadlineMillis      a frame (an HTTP request) must be whole this long after its first byte arrived,
 *                                 however the bytes trickle in; else its connection is closed
 * @param outboundConnectionsMax   peer connections this node keeps open to others at once; opening one more first
 *                                 closes the least recently used (a stranger who names many addresses as request
 *                                 origins cannot make the node hold a connection, and its queue, for each)
 * @param watchesPerConnectionMax  watches one binary client connection may hold at once ({@code CLIENT_WATCH});
 *                                 beyond it a new watch ends at once, {@code RATE_LIMITED}
 * @param idProofRequired          a peer must prove its id with its key (protocol 13): one that speaks only 12,
 *                                 which cannot, is refused; off only while a cluster is upgraded from 12
 */
public record Limits(int clientRequestsPerSecond, int peerRequestsPerSecond, long clientStorageBytes,
                     int connectionsMax, int connectionsPerIpMax, long idleMillis, long frameDeadlineMillis,
                     int peerIpRequestsPerSecond, int outboundConnectionsMax,
                     int watchesPerConnectionMax, boolean idProofRequired) {

    /** Turns a rate or share off. */
    public static final int OFF = -1;

    /** Client requests per second per IP: OpenDHT's per-IP limit. */
    public static final int CLIENT_REQUESTS_PER_SECOND = 1024;
    /** Peer frames per second per verified peer (node id): OpenDHT's per-node limit. */
    public static final int PEER_REQUESTS_PER_SECOND = 8192;
    /** Peer-port frames per second per source IP before the handshake: OpenDHT's per-IP limit. */
    public static final int PEER_IP_REQUESTS_PER_SECOND = 1024;
    /** Outbound peer connections open at once: every node of an overlay of a thousand, without churn. */
    public static final int OUTBOUND_CONNECTIONS_MAX = 1024;
    /** Live value bytes per client IP at one gateway: 64 MiB, 65,536 values of the default 1 KiB. */
    public static final long CLIENT_STORAGE_BYTES = 64L << 20;
    /** Watches per binary client connection: as many as a gateway serves by default (WatchLimits). */
    public static final int WATCHES_PER_CONNECTION_MAX = 10_000;
    /** Connections per port. */
    public static final int CONNECTIONS_MAX = 4096;
    /** Connections per IP per port: room for a local cluster of 256 processes on one address. */
    public static final int CONNECTIONS_PER_IP_MAX = 256;
    /** Idle connections are closed after five minutes, as a node forgets an unused peer. */
    public static final long IDLE_MILLIS = Duration.ofMinutes(5).toMillis();
    /** A frame or request must be whole ten seconds after its first byte. */
    public static final long FRAME_DEADLINE_MILLIS = Duration.ofSeconds(10).toMillis();

    public Limits {
        requireRate("clientRequestsPerSecond", clientRequestsPerSecond);
        requireRate("peerRequestsPerSecond", peerRequestsPerSecond);
        requireRate("peerIpRequestsPerSecond", peerIpRequestsPerSecond);
        if (outboundConnectionsMax < 1) {
            throw new IllegalArgumentException("outboundConnectionsMax must be positive, got "
                    + outboundConnectionsMax);
        }
        if (clientStorageBytes != OFF && clientStorageBytes < 1) {
            throw new IllegalArgumentException("clientStorageBytes must be positive or -1 (off), got "
                    + clientStorageBytes);
        }
        if (connectionsMax < 1 || connectionsPerIpMax < 1 || connectionsPerIpMax > connectionsMax) {
            throw new IllegalArgumentException("need 1 <= connectionsPerIpMax <= connectionsMax, got "
                    + connectionsPerIpMax + " and " + connectionsMax);
        }
        if (watchesPerConnectionMax < 1) {
            throw new IllegalArgumentException("watchesPerConnectionMax must be positive, got "
                    + watchesPerConnectionMax);
        }
        if (idleMillis < 1 || frameDeadlineMillis < 1) {
            throw new IllegalArgumentException("idleMillis and frameDeadlineMillis must be positive");
        }
    }

    /** The defaults above. */
    public static Limits defaults() {
        return new Limits(CLIENT_REQUESTS_PER_SECOND, PEER_REQUESTS_PER_SECOND, CLIENT_STORAGE_BYTES,
                CONNECTIONS_MAX, CONNECTIONS_PER_IP_MAX, IDLE_MILLIS, FRAME_DEADLINE_MILLIS,
                PEER_IP_REQUESTS_PER_SECOND, OUTBOUND_CONNECTIONS_MAX, WATCHES_PER_CONNECTION_MAX, true);
    }

    public Limits withClientRequestsPerSecond(int v) {
        return new Limits(v, peerRequestsPerSecond, clientStorageBytes, connectionsMax, connectionsPerIpMax,
                idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withPeerRequestsPerSecond(int v) {
        return new Limits(clientRequestsPerSecond, v, clientStorageBytes, connectionsMax, connectionsPerIpMax,
                idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withClientStorageBytes(long v) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, v, connectionsMax, connectionsPerIpMax,
                idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withConnections(int total, int perIp) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, total, perIp,
                idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withTimeouts(long idle, long frameDeadline) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, connectionsMax,
                connectionsPerIpMax, idle, frameDeadline, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withPeerIpRequestsPerSecond(int v) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, connectionsMax,
                connectionsPerIpMax, idleMillis, frameDeadlineMillis, v, outboundConnectionsMax,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withOutboundConnectionsMax(int v) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, connectionsMax,
                connectionsPerIpMax, idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, v,
                watchesPerConnectionMax, idProofRequired);
    }

    public Limits withWatchesPerConnectionMax(int v) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, connectionsMax,
                connectionsPerIpMax, idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                v, idProofRequired);
    }

    /** Whether a peer must prove its id (off only while a cluster is upgraded from protocol 12). */
    public Limits withIdProofRequired(boolean v) {
        return new Limits(clientRequestsPerSecond, peerRequestsPerSecond, clientStorageBytes, connectionsMax,
                connectionsPerIpMax, idleMillis, frameDeadlineMillis, peerIpRequestsPerSecond, outboundConnectionsMax,
                watchesPerConnectionMax, v);
    }

    /** The connection bounds and timeouts every port applies. */
    public ConnectionLimits connections() {
        return new ConnectionLimits(connectionsMax, connectionsPerIpMax, idleMillis, frameDeadlineMillis);
    }

    private static void requireRate(String name, int rate) {
        if (rate != OFF && rate < 1) {
            throw new IllegalArgumentException(name + " must be positive or -1 (off), got " + rate);
        }
    }
}
