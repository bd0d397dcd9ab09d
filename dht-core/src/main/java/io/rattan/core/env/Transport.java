package io.rattan.core.env;

import io.rattan.api.Address;
import io.rattan.core.msg.Envelope;

/**
 * Moves frames between nodes, fire-and-forget. Replies are messages too, matched by request id in core;
 * a lost message shows up as a timeout there. Called only from the node's event loop.
 */
public interface Transport {

    void send(Address to, Envelope envelope);
}
