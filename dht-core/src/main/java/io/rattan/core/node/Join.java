package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's way into the overlay: a join request routed to its id's root through one bootstrap after another until
 * a root answers, then the announcement that fills other nodes' tables. Owned by the node's event loop.
 */
final class Join {

    private static final Logger log = LoggerFactory.getLogger(Join.class);
    private static final int ANNOUNCE_PINGS_MAX = 64;

    private final NodeContext ctx;
    private final Membership members;
    private final TableMaintenance tables;
    private List<Address> bootstrap = List.of();
    private int bootstrapIndex;
    private boolean joined;
    // The request ids of this node's join attempts, until it has joined (one per attempt: a few).
    private final Set<Long> joinIds = new HashSet<>();

    Join(NodeContext ctx, Membership members, TableMaintenance tables) {
        this.ctx = ctx;
        this.members = members;
        this.tables = tables;
    }

    /** Joins through the first of {@code bootstrapNodes} that answers; none: this node starts a new overlay. */
    void start(List<Address> bootstrapNodes) {
        bootstrap = List.copyOf(bootstrapNodes);
        if (bootstrap.isEmpty()) {
            joined = true;
            log.info("{} started a new overlay at {}", ctx.tag(), ctx.self().address());
        } else {
            attempt();
        }
    }

    boolean isJoined() {
        return joined;
    }

    private void attempt() {
        if (ctx.stopped() || joined) {
            return;
        }
        Address to = bootstrap.get(bootstrapIndex++ % bootstrap.size());
        Outbox outbox = ctx.outbox();
        long joinId = outbox.nextRequestId();
        joinIds.add(joinId);
        long timeout = nanos(ctx.config().requestTimeoutMillis());
        outbox.expect(joinId, ctx.now(), timeout, false, ReplyHandler.of(
                reply -> finish(),
                () -> {
                    log.info("{} got no join answer through {}; trying again", ctx.tag(), to);
                    attempt();
                }));
        // The first hop's ack is not awaited: the join's own timeout covers a dead bootstrap.
        outbox.send(to, outbox.nextRequestId(), new JoinRequest(ctx.self(), joinId, 0));
    }

    /** Contacts from a node on the join path, or the root's answer. */
    void onJoinInfo(Envelope e, JoinInfo info) {
        info.contacts().forEach(members::learn);
        if (info.fromRoot()) {
            ctx.outbox().onReply(e);
            // A root's answer that comes after its attempt timed out (the root or the path was slow) still joins:
            // the next attempt would meet the same slow nodes. Only answers to this node's own attempts count.
            if (!ctx.stopped() && joinIds.contains(e.requestId())) {
                finish();
            }
        }
    }

    private void finish() {
        if (joined) {
            return;
        }
        joined = true;
        joinIds.clear();
        log.info("{} joined: {} leaf-set members, {} routing entries", ctx.tag(), members.leafMembers().size(),
                members.tableSize());
        for (Contact c : members.leafMembers()) {
            members.exchangeWith(c);
        }
        // Deepest rows first: the nodes sharing the longest prefix with this one are the ones whose tables have a
        // slot it may fill, and every joiner's top rows hold the same few early nodes, which a crowd of joiners
        // pinging row 0 first would swamp.
        List<Contact> announced = members.tableEntries();
        Collections.reverse(announced);
        int pings = 0;
        for (Contact c : announced) {
            if (pings++ >= ANNOUNCE_PINGS_MAX) {
                break;
            }
            if (!members.inLeafSet(c.id())) {
                tables.ping(c);
            }
        }
    }
}
