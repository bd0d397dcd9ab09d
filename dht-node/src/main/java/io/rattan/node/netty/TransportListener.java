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
        /** Too many frames queued while the connection was being set up. */
        QUEUE_FULL,
        /** The connection's write buffer is above its high-water mark: the peer is not reading. */
        UNWRITABLE,
        /** The connection failed or closed before the frame was written. */
        CONNECTION_LOST,
        /** The frame could not be encoded (a bug in the sender: a field breaks a wire bound). */
        UNENCODABLE,
        /** The transport was closed or halted. */
        CLOSED
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
        FRAME_DEADLINE
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

    /** An outbound frame was dropped; core's timeouts account for it. */
    default void frameDropped(DropReason reason) {
    }
}
