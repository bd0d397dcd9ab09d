package io.rattan.core.node;

import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.net.Contact;

/**
 * Where a pong's clock reading goes: to the expiry clock, named by the answering host ({@link HostKeys}), so that
 * one host answering under many ids counts once in the median that corrects it. Ids on this node's own host are
 * named by their address, so that each counts once: a cluster on one machine would otherwise never hear three.
 */
final class ClockSamples {

    private ClockSamples() {
    }

    /**
     * Gives the expiry clock {@code c}'s answer {@code p} to a ping sent at {@code sentNanos}; {@code asked}: the ping
     * asked the time of a leaf-set member, not probed a contact for the tables ({@code Clock.peerTime}).
     */
    static void record(NodeContext ctx, Contact c, Pong p, long sentNanos, boolean asked) {
        ctx.clock().peerTime(source(c, ctx.self()), p.senderMillis(), ctx.now() - sentNanos, asked);
    }

    /** What a sample from {@code c} is counted as, at a node whose own contact is {@code self}. */
    static Object source(Contact c, Contact self) {
        String host = HostKeys.of(c.address().host());
        return host.equals(HostKeys.of(self.address().host())) ? c.address() : host;
    }
}
