package io.rattan.node.cli;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.node.OriginLimits;
import io.rattan.node.limits.Limits;
import picocli.CommandLine.Option;

/**
 * The node's limits on the command line; -1 turns a rate or a share off. {@code rattan node --help} shows each default
 * (the command sets {@code showDefaultValues}); docs/security.md says why each is what it is.
 */
final class LimitOptions {

    @Option(names = "--client-rate", paramLabel = "N",
            description = "Requests per second one source IP may make to the gateways (binary and HTTP together); "
                    + "above it: RATE_LIMITED / HTTP 429 with Retry-After. -1: off.")
    int clientRate = Limits.CLIENT_REQUESTS_PER_SECOND;

    @Option(names = "--peer-rate", paramLabel = "N",
            description = "Frames per second one verified peer (by the node id its handshake proved) may send to "
                    + "the peer port; above it frames are dropped and counted. -1: off.")
    int peerRate = Limits.PEER_REQUESTS_PER_SECOND;

    @Option(names = "--peer-ip-rate", paramLabel = "N",
            description = "Frames per second one source IP may send to the peer port before its connection's "
                    + "handshake completes; above it frames are dropped and counted. -1: off.")
    int peerIpRate = Limits.PEER_IP_REQUESTS_PER_SECOND;

    @Option(names = "--client-storage-bytes", paramLabel = "BYTES",
            description = "Storage share of one source IP at this gateway: bytes of its live values; a put beyond "
                    + "it is refused (QUOTA_EXCEEDED / HTTP 429). -1: off.")
    long clientStorageBytes = Limits.CLIENT_STORAGE_BYTES;

    @Option(names = "--connections-max", paramLabel = "N",
            description = "Connections open at once, per port.")
    int connectionsMax = Limits.CONNECTIONS_MAX;

    @Option(names = "--connections-per-ip", paramLabel = "N",
            description = "Connections open at once from one IP, per port.")
    int connectionsPerIp = Limits.CONNECTIONS_PER_IP_MAX;

    @Option(names = "--outbound-connections-max", paramLabel = "N",
            description = "Peer connections this node keeps open to others at once; one more closes the least "
                    + "recently used.")
    int outboundConnectionsMax = Limits.OUTBOUND_CONNECTIONS_MAX;

    @Option(names = "--idle-timeout-ms", paramLabel = "MS",
            description = "Close a connection idle this long.")
    long idleMillis = Limits.IDLE_MILLIS;

    @Option(names = "--frame-deadline-ms", paramLabel = "MS",
            description = "Close a connection whose frame or HTTP request is not whole this long after its first "
                    + "byte.")
    long frameDeadlineMillis = Limits.FRAME_DEADLINE_MILLIS;

    @Option(names = "--watches-per-connection", paramLabel = "N",
            description = "Watches one binary client connection may hold at once; one more ends at once "
                    + "(RATE_LIMITED).")
    int watchesPerConnection = Limits.WATCHES_PER_CONNECTION_MAX;

    @Option(names = "--require-id-proof", arity = "1", paramLabel = "true|false",
            description = "Take only peers that prove their id with their key. Every protocol version this build "
                    + "speaks (" + MessageCodec.VERSION_OLDEST + " to " + MessageCodec.VERSION + ") proves ids, so false "
                    + "changes nothing since 14; it is kept so that the "
                    + "settings of an upgrade from 12 still start (docs/deploy.md).")
    boolean requireIdProof = true;

    @Option(names = "--origin-put-rate", paramLabel = "N",
            description = "Puts a second this node, as a key's root, takes from one origin (the gateway that signed "
                    + "them, wherever they came from); one second's burst. Beyond: RATE_LIMITED to the origin.")
    int originPutRate = OriginLimits.PUTS_PER_SECOND;

    @Option(names = "--origin-storage-bytes", paramLabel = "BYTES",
            description = "Live value bytes this node, as a key's root, takes from one origin until they expire. "
                    + "Beyond: QUOTA_EXCEEDED to the origin.")
    long originStorageBytes = OriginLimits.STORAGE_BYTES;

    @Option(names = "--require-origin-proofs", arity = "1", paramLabel = "true|false",
            description = "Take a put as a key's root only with its origin's signature over it (protocol 17; the "
                    + "default). false only while nodes of 16, which sign none, are in the cluster: such puts are "
                    + "then counted against the origin they name (docs/deploy.md).")
    boolean requireOriginProofs = true;

    /** What this node, as a key's root, takes from one origin. */
    OriginLimits originLimits() {
        return new OriginLimits(requireOriginProofs, originPutRate, originStorageBytes);
    }

    Limits limits() {
        return new Limits(clientRate, peerRate, clientStorageBytes, connectionsMax, connectionsPerIp, idleMillis,
                frameDeadlineMillis, peerIpRate, outboundConnectionsMax, watchesPerConnection, requireIdProof);
    }
}
