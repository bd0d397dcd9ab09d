package io.rattan.core.node;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import java.util.function.Consumer;

/**
 * The upkeep pings whose pongs tell the time, and where that reading goes: to the expiry clock, named by the
 * answering host ({@link HostKeys}), so that one host answering under many ids counts once in the median that corrects
 * it. Ids on this node's own host are named by their address, so that each counts once: a cluster on one machine would
 * otherwise never hear three.
 */
final class ClockSamples {

    private ClockSamples() {
    }

    /**
     * Pings {@code c} (waiting {@code rtoNanos}), gives the expiry clock its pong's time, then runs {@code then} on the
     * reply, or {@code timedOut}. {@code asked}: the ping asks a leaf-set member the time, rather than probing a
     * contact for the tables ({@code Clock.peerTime}): table probes, second-hand probes and the leaf set's time.
     */
    static void ping(NodeContext ctx, Contact c, long rtoNanos, boolean asked, Consumer<Envelope> then,
                     Runnable timedOut) {
        long sent = ctx.now();
        ctx.outbox().request(c, new Ping(), rtoNanos, ReplyHandler.of(reply -> {
            if (reply.body() instanceof Pong p) {
                ctx.clock().peerTime(source(c, ctx.self()), p.senderMillis(), ctx.now() - sent, asked);
            }
            then.accept(reply);
        }, timedOut));
    }

    /** Asks leaf-set member {@code c} the time: its pong corrects the expiry clock, nothing else is done with it. */
    static void askTheTime(NodeContext ctx, Membership members, Contact c) {
        ping(ctx, c, members.rtoNanos(c.id()), true, reply -> { }, () -> { });
    }

    /** What a sample from {@code c} is counted as, at a node whose own contact is {@code self}. */
    static Object source(Contact c, Contact self) {
        String host = HostKeys.of(c.address().host());
        return host.equals(HostKeys.of(self.address().host())) ? c.address() : host;
    }
}
