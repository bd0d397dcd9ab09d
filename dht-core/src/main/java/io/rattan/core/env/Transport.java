package io.rattan.core.env;

import io.rattan.core.msg.Envelope;
import io.rattan.core.net.Address;

/**
 * Moves frames between nodes, fire-and-forget. Replies are messages too, matched by request id in core;
 * a lost message shows up as a timeout there. Called only from the node's event loop.
 */
public interface Transport {

    void send(Address to, Envelope envelope);
}
