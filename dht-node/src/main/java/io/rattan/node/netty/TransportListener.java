package io.rattan.node.netty;

/**
 * What the transport and the servers report, for metrics. Called on I/O threads; implementations must be thread-safe
 * and quick.
 */
public interface TransportListener {

    /** A listener that ignores every report. */
    TransportListener NONE = new TransportListener() { };

    /** Why an outbound frame was dropped without being written. */
    enum DropReason {
        /**
         * Too many frames (or bytes) queued while the connection was being set up, and nothing older to shed: the
         * frame alone is over the bound.
         */
        QUEUE_FULL,
        /**
         * The oldest frame queued for a peer while its connection was being set up, dropped to make room for a newer
         * one: overload sheds old work first.
         */
        SHED,
        /** The connection's write buffer is above its high-water mark: the peer is not reading. */
        UNWRITABLE,
        /** The connection failed or closed before the frame was written. */
        CONNECTION_LOST,
        /** The frame could not be encoded (a bug in the sender: a field breaks a wire bound). */
        UNENCODABLE,
        /** The peer speaks a protocol version that has no such message (a remove's ack to a gateway of 14). */
        OLDER_PEER,
        /** The transport was closed or halted. */
        CLOSED,
        /**
         * The address has not completed the peer handshake: its listener sent no {@code Welcome} to the last
         * {@code Hello} (within the handshake timeout), and the next may go only after the hello interval.
         */
        UNVERIFIED,
        /** The address's host is not an IP literal: peers are known by IP literals only, never resolved. */
        NOT_AN_IP
    }

    /** Why an inbound peer frame was dropped before reaching the node. */
    enum RefusalReason {
        /** A {@code Hello} whose claim cannot hold: not an IP literal, not the connection's source IP, or another version. */
        BAD_HELLO,
        /** A {@code ChallengeAnswer} with the wrong nonce, or a handshake frame out of turn. */
        BAD_ANSWER,
        /**
         * A {@code ChallengeAnswer}, of a peer speaking 13 or later, that does not prove the claimed id: no key, a key
         * whose SHA-1 is another id, or a signature that is not the key's over this challenge; or, with proofs
         * required, a {@code Hello} of a peer that speaks only 12, which cannot prove one; or, under TLS, a
         * {@code Hello} claiming another id than its connection's certificate names.
         */
        UNPROVEN_ID,
        /** An envelope before the sender's handshake completed. */
        UNVERIFIED,
        /** An envelope whose sender is not the contact its connection proved. */
        FORGED_SENDER
    }

    /** Why a server refused a connection or a frame, or closed a connection, to bound what a stranger can hold. */
    enum Refusal {
        /** A connection beyond the port's total bound, closed on accept. */
        CONNECTIONS,
        /** A connection beyond the bound for its IP, closed on accept. */
        CONNECTIONS_PER_IP,
        /** A frame or request above its sender's rate. */
        RATE,
        /** A connection closed after its idle timeout. */
        IDLE,
        /** A connection closed because a frame or request was not whole by its deadline. */
        FRAME_DEADLINE,
        /**
         * An outbound peer connection closed, the least recently used, to open another within the outbound bound.
         */
        OUTBOUND_CONNECTIONS,
        /**
         * A watch's event stream closed because its client did not read it: its unsent events passed their bound, or
         * stayed above the connection's high-water mark for a whole keep-alive period.
         */
        SLOW_WATCHER
    }

    /** A server refused something to keep within its limits. */
    default void refused(Refusal refusal) {
    }

    /** Bytes handed to a socket, length prefixes included. */
    default void bytesSent(long bytes) {
    }

    /** Bytes read from a socket, malformed input included. */
    default void bytesReceived(long bytes) {
    }

    /** An inbound frame was refused (undecodable, oversize length, wrong kind); its connection is closed. */
    default void frameRejected() {
    }

    /** An inbound peer frame was refused by the handshake rules; never reaches the node. */
    default void peerFrameRefused(RefusalReason reason) {
    }

    /** An outbound frame was dropped; core's timeouts account for it. */
    default void frameDropped(DropReason reason) {
    }
}
