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
 * more, with what is left of the request timeout: they may be only slow. Owned by the node's event loop.
 *
 * <p>Why once more: on a loaded machine every candidate may "time out" at the RTO's 100 ms floor while only slow,
 * and a healthy cluster would answer 503. Why not wait out every late question instead: the late answers teach the
 * gateway long RTOs for slow nodes and steer lookups toward the nodes they name, which costs the tail
 * (docs/history.md, "Iterative gets ask the closest once more").
 *
 * <p>An answer is taken only from a node that may give it ({@link GetAnswerCheck}, issue 39, item 1): one with values
 * only from a node of which this gateway knows fewer than k nodes closer to the key (suspects counted), an empty one
 * only from one it knows none closer. Any other is set aside, the closest node known is offered to the lookup, and
 * the lookup goes on; the first answer set aside stands if no node that may answer does before the lookup runs out,
 * unless this gateway then suspects every node it knows closer than its sender ({@link GetAnswerCheck#atDeadline}):
 * then the closest are asked once more as above, and if they do not answer either the answer is refused.
 */
final class IterativeGateway {

    /** An iterative get's p when the client does not say; the OpenDHT study's value. */
    static final int PARALLELISM_DEFAULT = 3;
    /** How long before the client request's deadline the last round of questions times out. */
    private static final long ROUND_MARGIN_NANOS = 1_000_000L;

    private final NodeContext ctx;
    private final Membership members;
    private final GetAnswerCheck answerCheck;

    IterativeGateway(NodeContext ctx, Membership members, GetAnswerCheck answerCheck) {
        this.ctx = ctx;
        this.members = members;
        this.answerCheck = answerCheck;
    }

    /**
     * One iterative get in progress: the client's request, the question asked, its request id, its lookup and when
     * the client request times out.
     */
    private record Run(ClientGet client, IterativeGet q, long id, IterativeLookup lookup, long deadline) {
    }

    /**
     * Starts {@code g}; its answer (or failure) completes the client request {@code id} registered in the outbox,
     * which times out at {@code deadline} (this node's nanoseconds).
     */
    void start(ClientGet g, long id, long deadline) {
        int p = g.options().parallelism() == 0 ? PARALLELISM_DEFAULT : g.options().parallelism();
        IterativeLookup lookup = new IterativeLookup(g.key(), ctx.self().id(), p);
        lookup.offer(members.closerNeighbours(g.key(), GetAnswers.ITERATIVE_CANDIDATES), 1);
        pump(new Run(g, new IterativeGet(g.key(), g.maxValues(), g.placemark(), g.wantHolders(),
                g.options().filter()), id, lookup, deadline));
    }

    private void pump(Run run) {
        IterativeLookup lookup = run.lookup();
        Contact c;
        while ((c = lookup.next()) != null) {
            ask(run, c, members.rtoNanos(c.id()));
        }
        if (lookup.finished() || !lookup.exhausted()) {
            return;
        }
        GetReply aside = lookup.setAside();
        if (aside != null && !answerCheck.atDeadline(run.client(), lookup.setAsideBy(), aside).refused()) {
            // Nobody closer answered in time: the node whose answer was set aside may be honest and the others down.
            lookup.finish();
            complete(run.id(), aside.withCost(lookup.cost()));
            return;
        }
        // Its own timer first, so that a round nobody answers ends in 503, not in the client request's timeout.
        long left = run.deadline() - ctx.now() - ROUND_MARGIN_NANOS;
        List<Contact> again = left > 0 ? lookup.askAgain() : List.of();
        if (!again.isEmpty()) {
            again.forEach(asked -> ask(run, asked, left));
            return;
        }
        lookup.finish();
        complete(run.id(), aside != null ? GetAnswerCheck.Verdict.REFUSE.passOn(aside)
                : new ErrorReply(Status.UNAVAILABLE, "iterative get: no candidate near the key answered"));
    }

    private void ask(Run run, Contact asked, long timeoutNanos) {
        IterativeLookup lookup = run.lookup();
        lookup.spent(ctx.outbox().sizeOf(ctx.self(), run.q()));
        ctx.outbox().request(asked, run.q(), timeoutNanos, ReplyHandler.of(
                e -> answered(run, asked, e),
                () -> {
                    if (ctx.stopped() || lookup.finished()) {
                        return;
                    }
                    members.peerTimedOut(asked);
                    lookup.failed(asked);
                    pump(run);
                }));
    }

    private void answered(Run run, Contact asked, Envelope e) {
        IterativeLookup lookup = run.lookup();
        lookup.answered(asked);
        lookup.spent(ctx.outbox().sizeOf(asked, e.body()));
        if (lookup.finished()) {
            return;
        }
        IterativeGetReply r = (IterativeGetReply) e.body();
        if (!r.answered()) {
            lookup.offer(r.contacts(), lookup.depth(asked) + 1);
        } else {
            GetReply answer = new GetReply(r.status(), r.values(), r.placemark(), lookup.depth(asked), "",
                    lookup.cost(), run.q().wantHolders() ? r.contacts() : List.of());
            GetAnswerCheck.Verdict v = answerCheck.judge(run.client(), asked, answer);
            if (v == GetAnswerCheck.Verdict.TAKE) {
                lookup.finish();
                complete(run.id(), answer);
                return;
            }
            if (!v.refused()) {
                // A refused answer is not kept: it must not stand if the lookup runs out.
                lookup.setAside(asked, answer);
                lookup.offer(List.of(v.instead()), lookup.depth(asked));
            }
        }
        pump(run);
    }

    private void complete(long id, Message reply) {
        ctx.outbox().onReply(new Envelope(ctx.self(), id, reply));
    }
}
