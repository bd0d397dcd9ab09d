package io.rattan.node.transport;

import io.rattan.core.msg.Envelope;

/**
 * An envelope waiting for its connection's {@code Welcome} ({@link OutboundConnections}), encoded only once the
 * Welcome names the peer's version; {@code size} is what it counts against the queue's bounds.
 */
record QueuedEnvelope(Envelope envelope, int size) {
}
