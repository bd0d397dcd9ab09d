package io.rattan.core.node;

import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * Keeps the routing table measured and spread: one ping a period to a table entry in turn (and one to a leaf-set
 * member for the expiry clock, {@link #askTheTime}), and proximity
 * neighbour selection from the suggestions that pongs carry. Owned by the node's event loop.
 *
 * <p>A table slot keeps the first nodes offered until a measured, faster one comes along, and new nodes copy their
 * top rows from the nodes on their join path, so without measuring new candidates every node's top rows would hold
 * the same few early nodes for ever, and those would carry a large share of all traffic (docs/history.md, "Slot
 * suggestions in pongs").
 */
final class TableMaintenance {

    /** Leaf-set members asked the time a period while this node's expiry clock has not settled since its boot. */
    private static final int UNSETTLED_PINGS = 3;

    private final NodeContext ctx;
    private final Membership members;
    private int probeCursor;
    private int clockCursor;
    /**
     * A node that a table neighbour's pong suggested for the slot it shares with that neighbour, to be measured at
     * the next maintenance tick instead of the next table probe; null when there is none.
     */
    private Contact slotCandidate;

    TableMaintenance(NodeContext ctx, Membership members) {
        this.ctx = ctx;
        this.members = members;
    }

    /** Draws where the table probes start; called once, when the node starts. */
    void start() {
        // Every node's top row holds the same few early nodes, and a wave of nodes that all started at entry 0
        // probed them at once: at 100,000 simulated nodes their queues grew past every timeout, and puts and gets
        // routed through them failed.
        probeCursor = ctx.random().nextInt();
    }

    /**
     * One maintenance period's share. Every routing-table entry's RTT stays at most two table-lengths of periods old,
     * so delay-aware gets stop sending traffic to a slow neighbour, and with it the samples that would show its
     * recovery (or, for one not used lately, that it turned slow). Measuring a suggested slot candidate takes the
     * period's ping, so maintenance sends no more than one ping a period.
     */
    void probeRound() {
        if (slotCandidate != null) {
            measureCandidate(slotCandidate);
            slotCandidate = null;
        } else if (members.tableSize() > 0) {
            ping(members.tableEntry(Math.floorMod(probeCursor++, members.tableSize())));
        }
        askTheTime();
    }

    /**
     * Pings the next leaf-set member for the expiry clock, three while it has not settled since boot: the clock's
     * peers are the leaf set's members, placed by their ids, not whoever other nodes name to this one (a host that
     * names its own ids to every node gets them probed and into routing tables: docs/security.md, item 7).
     */
    private void askTheTime() {
        if (!ctx.clock().correctedByPeers()) {
            // A virtual world without faults runs on its scheduler's time: nothing to ask, and its traces stay.
            return;
        }
        List<Contact> leaves = members.leafMembers();
        int pings = Math.min(leaves.size(), ctx.clock().settled() ? 1 : UNSETTLED_PINGS);
        for (int i = 0; i < pings; i++) {
            Contact c = leaves.get(Math.floorMod(clockCursor++, leaves.size()));
            ClockSamples.askTheTime(ctx, members, c);
        }
    }

    /** Pings {@code c}: an RTT sample, and perhaps a suggestion for one of our slots. */
    void ping(Contact c) {
        ClockSamples.ping(ctx, c, members.rtoNanos(c.id()), false, reply -> considerSuggestions(reply.body()),
                () -> members.peerTimedOut(c));
    }

    /** A candidate measured faster than the slowest of a full slot replaces it; one that is not kept is forgotten. */
    private void measureCandidate(Contact c) {
        ctx.outbox().request(c, new Ping(), members.rtoNanos(c.id()), ReplyHandler.of(
                reply -> {
                    // The RTT sample was taken just before this handler ran; heard() offered the contact unmeasured.
                    // The answer's sender is the verified contact (c was named second hand).
                    members.add(reply.sender());
                    if (!members.isNeighbour(c.id())) {
                        members.forgetPeer(c.id());
                    }
                },
                // Not a neighbour: nothing routes through it, so there is nothing to probe or to re-route.
                () -> { }));
    }

    /** Takes a pong's suggestion: probed when its slot has room, else kept as the slot candidate to measure. */
    private void considerSuggestions(Message pong) {
        if (!(pong instanceof Pong p)) {
            return;
        }
        for (Contact c : p.suggestions()) {
            if (c.id().equals(ctx.self().id()) || members.isNeighbour(c.id()) || members.isRecentlyDead(c.id())) {
                continue;
            }
            // A suggestion for a slot with room is probed at once; one for a full slot is measured next tick.
            members.learn(c);
            if (!members.isNeighbour(c.id()) && !members.probes().isProbing(c.id())) {
                slotCandidate = c;
            }
        }
    }

    /**
     * The pong for {@code pinger}: it suggests a random leaf-set member that shares one more leading digit with this
     * node than the pinger does, so that it falls in the same slot of the pinger's table as this node. Leaf-set
     * members are the nodes nearest this one in the ring, whatever their age, so suggestions spread the pingers'
     * tables over the whole overlay.
     */
    /** This node's expiry clock for a pong; 0 (nothing to learn) until it has settled since boot. */
    private long myTime() {
        return ctx.clock().settled() ? ctx.clock().epochMillis() : 0;
    }

    Pong answerPing(Contact pinger) {
        int row = ctx.self().id().sharedPrefixLength(pinger.id());
        List<Contact> leaves = members.leafMembers();
        int n = leaves.size();
        if (n == 0) {
            return new Pong(List.of(), myTime());
        }
        int start = ctx.random().nextInt(n);
        for (int i = 0; i < n; i++) {
            Contact c = leaves.get((start + i) % n);
            if (ctx.self().id().sharedPrefixLength(c.id()) > row && !c.id().equals(pinger.id())) {
                return new Pong(List.of(c), myTime());
            }
        }
        return new Pong(List.of(), myTime());
    }
}
