package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a peer is taken for dead: a peer whose request timed out is suspected and probed, and declared dead when the
 * probe goes unanswered for the RTO's cap, or at once when its address refuses connections while it is suspected (a
 * node that is slow still accepts them; a process that is gone does not, and waiting out the probe kept every request
 * routed to it waiting seconds). Part of {@link Membership}; owned by the node's event loop.
 */
final class FailureDetector {

    private static final Logger log = LoggerFactory.getLogger(FailureDetector.class);

    private final NodeContext ctx;
    private final LeafSet leafSet;
    private final RoutingTable table;
    private final Peers peers;
    private final LostContacts lost;
    private final Consumer<Contact> forget;
    // The probe under way for each suspect, so that a refusal can end it. Never iterated.
    private final Map<Id, ResentRequest> probes = new HashMap<>();

    /** {@code forget} drops a dead peer from every table and repairs around it ({@link Membership#forget}). */
    FailureDetector(NodeContext ctx, LeafSet leafSet, RoutingTable table, Peers peers, LostContacts lost,
                    Consumer<Contact> forget) {
        this.ctx = ctx;
        this.leafSet = leafSet;
        this.table = table;
        this.peers = peers;
        this.lost = lost;
        this.forget = forget;
    }

    /** A request to {@code c} timed out: suspect it and probe it; a failed probe declares it dead. */
    void peerTimedOut(Contact c) {
        if (ctx.outbox().isFull()) {
            // Our own request table is full: the failure is ours, not the peer's, so blame nobody.
            return;
        }
        peers.unanswered(c.id(), ctx.now());
        if (!peers.suspect(c.id(), !ctx.stopped())) {
            return;
        }
        long probeStarted = ctx.now();
        long wait = nanos(ctx.config().rtoMaxMillis());
        Id id = c.id();
        // Its own entry only: a peer forgotten while probed (it left) may be probed again before this probe ends.
        ResentRequest[] probe = new ResentRequest[1];
        probe[0] = ResentRequest.send(ctx, c, new Ping(), wait,
                leafSet.holds(c) ? Math.max(Membership.PROBE_RESEND_MIN_NANOS, peers.rtoNanos(id)) : wait,
                (reply, took) -> {
                    probes.remove(id, probe[0]);
                    peers.probeAnswered(id);
                },
                () -> {
                    probes.remove(id, probe[0]);
                    if (peers.probeLost(id, probeStarted)) {
                        declareDead(c, false);
                    }
                });
        probes.put(id, probe[0]);
    }

    /**
     * A connection to {@code a} was refused: nothing listens there now. The suspected neighbours there are declared
     * dead and their probes end; one not suspected is not (a refusal says no more than an unanswered request would,
     * until one goes unanswered: a restarting node refuses for a moment).
     */
    void refused(Address a) {
        if (ctx.stopped()) {
            return;
        }
        List<Contact> known = new ArrayList<>(leafSet.members());
        known.addAll(table.all());
        for (Contact c : known) {
            // A contact in both tables is forgotten from both at its first turn, and no longer suspected at its second.
            if (c.address().equals(a) && peers.isSuspect(c.id())) {
                ResentRequest probe = probes.remove(c.id());
                if (probe != null) {
                    probe.cancel();
                }
                declareDead(c, true);
            }
        }
    }

    private void declareDead(Contact c, boolean refused) {
        log.debug("{} declares {} dead{}", ctx.tag(), c, refused ? ": its address refuses connections" : "");
        if (leafSet.holds(c) || c.equals(table.find(c.id()))) {
            // A neighbour it verified itself: pinged again for a while, in case it is only cut off.
            lost.lost(c);
            ctx.listener().peerDeclaredDead(refused);
        }
        forget.accept(c);
    }
}
