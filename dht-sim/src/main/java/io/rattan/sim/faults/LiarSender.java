package io.rattan.sim.faults;

import io.rattan.api.Address;
import io.rattan.core.msg.Message;

/** How a liar's side attack sends a frame in the liar's own name (request id 0: it waits for no answer). */
@FunctionalInterface
interface LiarSender {
    void send(int liar, Address to, Message body);
}
