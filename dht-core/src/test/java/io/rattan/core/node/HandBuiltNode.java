package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.env.RequestIds;
import io.rattan.core.env.Transport;
import io.rattan.core.id.NodeKey;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The parts every job of a node shares, wired by hand as {@link Node} wires them, for a test of one job without a node
 * or a network: its context on a virtual scheduler (random seed 1, request ids from a stream of their own), its
 * membership and its outbox, which sends through {@code transport}.
 */
record HandBuiltNode(NodeContext ctx, Membership members, Outbox outbox) {

    static HandBuiltNode of(Contact self, NodeConfig config, VirtualScheduler scheduler, NodeListener listener,
                            Transport transport) {
        return of(self, config, scheduler, listener, transport, () -> { }, id -> { });
    }

    /** As {@link #of(Contact, NodeConfig, VirtualScheduler, NodeListener, Transport)}, with membership's callbacks. */
    static HandBuiltNode of(Contact self, NodeConfig config, VirtualScheduler scheduler, NodeListener listener,
                            Transport transport, Runnable leafSetChanged, Consumer<Id> answersResumed) {
        NodeContext ctx = new NodeContext(self, config, scheduler, scheduler, new SplittableRandom(1), listener,
                NodeKey.draw(new SplittableRandom(1)));
        Membership members = new Membership(ctx, leafSetChanged, answersResumed);
        Outbox outbox = new Outbox(ctx, transport, RequestIds.OWN_STREAM, members::sampleRtt);
        ctx.attach(outbox);
        return new HandBuiltNode(ctx, members, outbox);
    }
}
