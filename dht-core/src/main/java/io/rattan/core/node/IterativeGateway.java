package io.rattan.core.node;

import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * Runs iterative gets as their gateway: asks the closest known candidates itself, p at a time, each with the
 * per-peer timeout; every answer names closer nodes, and the first node that answers with values completes the
 * client's request. Once every candidate was asked and none answered within its RTO, the p closest are asked once
 * more, with the request timeout: they may be only slow. The client request's own timer, started first with the
 * same timeout, fires before that second round's, so a get whose second round is not answered times out rather
 * than failing with 503 (a known flaw: the round should get only the time the request has left). Owned by the
 * node's event loop.
 *
 * <p>Why once more: on a loaded machine every candidate may "time out" at the RTO's 100 ms floor while only slow,
 * and a healthy cluster would answer 503. Why not wait out every late question instead: the late answers teach the
 * gateway long RTOs for slow nodes and steer lookups toward the nodes they name, which costs the tail
 * (docs/history.md, "Iterative gets ask the closest once more").
 */
final class IterativeGateway {

    /** An iterative get's p when the client does not say; the OpenDHT study's value. */
    static final int PARALLELISM_DEFAULT = 3;

    private final NodeContext ctx;
    private final Membership members;

    IterativeGateway(NodeContext ctx, Membership members) {
        this.ctx = ctx;
        this.members = members;
    }

    /** Starts {@code g}; its answer (or failure) completes the client request {@code id} registered in the outbox. */
    void start(ClientGet g, long id) {
        int p = g.options().parallelism() == 0 ? PARALLELISM_DEFAULT : g.options().parallelism();
        IterativeLookup lookup = new IterativeLookup(g.key(), ctx.self().id(), p);
        lookup.offer(members.closerNeighbours(g.key(), GetAnswers.ITERATIVE_CANDIDATES), 1);
        pump(lookup, new IterativeGet(g.key(), g.maxValues(), g.placemark(), g.wantHolders(), g.options().filter()),
                id);
    }

    private void pump(IterativeLookup lookup, IterativeGet q, long id) {
        Contact c;
        while ((c = lookup.next()) != null) {
            ask(lookup, q, id, c, members.rtoNanos(c.id()));
        }
        if (!lookup.finished() && lookup.exhausted()) {
            List<Contact> again = lookup.askAgain();
            if (!again.isEmpty()) {
                long timeout = NodeContext.nanos(ctx.config().requestTimeoutMillis());
                again.forEach(asked -> ask(lookup, q, id, asked, timeout));
                return;
            }
            lookup.finish();
            complete(id, new ErrorReply(Status.UNAVAILABLE, "iterative get: no candidate near the key answered"));
        }
    }

    private void ask(IterativeLookup lookup, IterativeGet q, long id, Contact asked, long timeoutNanos) {
        lookup.spent(ctx.outbox().sizeOf(ctx.self(), q));
        ctx.outbox().request(asked, q, timeoutNanos, ReplyHandler.of(
                e -> answered(lookup, q, id, asked, e),
                () -> {
                    if (ctx.stopped() || lookup.finished()) {
                        return;
                    }
                    members.peerTimedOut(asked);
                    lookup.failed(asked);
                    pump(lookup, q, id);
                }));
    }

    private void answered(IterativeLookup lookup, IterativeGet q, long id, Contact asked, Envelope e) {
        lookup.answered(asked);
        lookup.spent(ctx.outbox().sizeOf(asked, e.body()));
        if (lookup.finished()) {
            return;
        }
        IterativeGetReply r = (IterativeGetReply) e.body();
        if (r.answered()) {
            lookup.finish();
            complete(id, new GetReply(r.status(), r.values(), r.placemark(), lookup.depth(asked), "", lookup.cost(),
                    q.wantHolders() ? r.contacts() : List.of()));
            return;
        }
        lookup.offer(r.contacts(), lookup.depth(asked) + 1);
        pump(lookup, q, id);
    }

    private void complete(long id, Message reply) {
        ctx.outbox().onReply(new Envelope(ctx.self(), id, reply));
    }
}
