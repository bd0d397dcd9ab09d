package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.net.Contact;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.testing.PlantedBugs;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a routed get's answer came from a node that could have given it (issue 39, item 1, gets). An honest node
 * answers a get only as one of the key's k replicas in its own view ({@link GetAnswers#answers}), and with no value
 * only as its root, unless the get is a quorum get or the replica holds nothing it returns (tombstones, a page past
 * the last value, values a filter drops). So a gateway that knows k nodes closer to the key than the sender of an
 * answer with values (itself and its suspects among them), or one closer than the sender of an empty answer, knows
 * the sender answered out of turn: a node on the path that lies (a value nobody put, an empty answer), or one whose
 * view lags this one's, or a replica with nothing to return. Either way the gateway asks the closest usable node it
 * knows instead, for a quorum read, or with none refuses a value (it is cut off from the key's replicas). What
 * passes: a node really among the k closest with a value, the key's root with none; and a gateway far from the key,
 * which knows few nodes near it, can tell less. One per node, shared by routed ({@link ClientRequests}) and iterative
 * ({@link IterativeGateway}) gets.
 */
final class GetAnswerCheck {

    private static final Logger log = LoggerFactory.getLogger(GetAnswerCheck.class);

    private final NodeContext ctx;
    private final Membership members;
    private final PlantedBugs bugs;

    GetAnswerCheck(NodeContext ctx, Membership members, PlantedBugs bugs) {
        this.ctx = ctx;
        this.members = members;
        this.bugs = bugs;
    }

    /**
     * What a gateway does with a get's answer: takes it ({@link #TAKE}), asks {@code instead} (the answer set aside),
     * or refuses it ({@link #REFUSE}: it may not come from the node that sent it, and no node that may answer is
     * reachable from here).
     */
    record Verdict(Contact instead, boolean refused) {
        static final Verdict TAKE = new Verdict(null, false);
        static final Verdict REFUSE = new Verdict(null, true);

        /** The answer to pass on for {@code e} when no one is asked instead: {@code e}, or an error if refused. */
        Envelope passOn(Envelope e) {
            return !refused ? e : new Envelope(e.sender(), e.requestId(), passOn(e.body()));
        }

        /** As above, for an answer {@code m}. */
        Message passOn(Message m) {
            return !refused ? m : new ErrorReply(Status.UNAVAILABLE,
                    "no replica of the key reachable from this gateway answered; retry");
        }
    }

    /**
     * The verdict on {@code answer} to {@code get} from {@code sender} (see the static form), counted and logged
     * unless taken; always taken with the check planted off.
     */
    Verdict judge(ClientGet get, Contact sender, Message answer) {
        Verdict v = bugs.getAnswersUnchecked() ? Verdict.TAKE
                : inThisView(get, sender, answer);
        if (v != Verdict.TAKE) {
            log.debug("{} sets aside {}'s answer to a get, no replica's (or root's) in this view; {}", ctx.tag(),
                    sender, v.refused() ? "refuses it: none reachable" : "asks " + v.instead());
            ctx.listener().getAnswerSetAside();
        }
        return v;
    }

    /**
     * The verdict on {@code e}, the answer to a second (or later) ask of {@code get}, {@code setAside} the first
     * answer: taken, but when it comes from the node whose first answer was set aside, out of turn again, while a node
     * closer to the key that may answer is usable: then that one is asked (the second ask was routed back to a liar
     * once the node asked was suspected). Not refused: an honest node past dead ones that are not yet declared so
     * answers twice so too, and with no usable node closer it is taken.
     */
    Verdict judgeAgain(ClientGet get, Envelope setAside, Envelope e) {
        if (bugs.getAnswersUnchecked() || e.sender() == null || setAside.sender() == null
                || !e.sender().id().equals(setAside.sender().id())) {
            return Verdict.TAKE;
        }
        Verdict v = inThisView(get, e.sender(), e.body());
        if (v.instead() == null) {
            return Verdict.TAKE;
        }
        log.debug("{} sets aside {}'s second answer to a get, out of turn again; asks {}", ctx.tag(), e.sender(),
                v.instead());
        ctx.listener().getAnswerSetAside();
        return v;
    }

    /**
     * The verdict on a set-aside answer with values when its deadline came and no other answer did: taken, unless this
     * gateway now suspects every node it knows closer to the key than {@code sender} (it learned it is cut off from
     * the key's replicas while the second ask waited), when it is refused. Not counted again; an empty answer stands.
     */
    Verdict atDeadline(ClientGet get, Contact sender, Message answer) {
        if (bugs.getAnswersUnchecked() || !(answer instanceof GetReply r) || r.values().isEmpty()
                || !inThisView(get, sender, answer).refused()) {
            return Verdict.TAKE;
        }
        log.debug("{} refuses {}'s answer to a get at its deadline: every closer node it knows is suspected",
                ctx.tag(), sender);
        return Verdict.REFUSE;
    }

    /** The static verdict below in this gateway's view, uncounted. */
    private Verdict inThisView(ClientGet get, Contact sender, Message answer) {
        return judge(members, ctx.self(), get, sender, answer, ctx.config().replicas());
    }

    /**
     * Whether {@code answer}, from {@code sender}, may have come from a replica (or, empty, from the root) of
     * {@code get}'s key in the view of {@code self}, a gateway with {@code members}' view, its suspects counted. Taken
     * when it may, or comes from this node, or is no get's answer. Else the closest usable node known is asked
     * instead; with none, an answer with values is refused (a gateway cut off from the key's replicas must not take a
     * value from the next node out) and an empty one taken (a refusal tells the client no more).
     */
    static Verdict judge(Membership members, Contact self, ClientGet get, Contact sender, Message answer,
                         int replicas) {
        if (sender == null || sender.id().equals(self.id()) || !(answer instanceof GetReply reply)) {
            return Verdict.TAKE;
        }
        Id key = get.key();
        List<Contact> closerKnown = members.neighbours(c -> !c.id().equals(sender.id())
                && c.id().isCloserTo(key, sender.id()));
        List<Contact> closer = closerKnown.stream().filter(members::usable).toList();
        int known = closerKnown.size() + (self.id().isCloserTo(key, sender.id()) ? 1 : 0);
        boolean rootOnly = reply.values().isEmpty() && !get.options().quorum();
        if (known < (rootOnly ? 1 : replicas)) {
            return Verdict.TAKE;
        }
        if (closer.isEmpty()) {
            return rootOnly ? Verdict.TAKE : Verdict.REFUSE;
        }
        Comparator<Contact> nearer = (a, b) -> a.id().isCloserTo(key, b.id()) ? -1
                : b.id().isCloserTo(key, a.id()) ? 1 : 0;
        return new Verdict(closer.stream().min(nearer).orElseThrow(), false);
    }

    /**
     * What a set-aside answer's second ask asks: a quorum read, so that the answer is the merge of R replicas' records
     * and not one more node's word (which lags when the first one's view was ahead, or lies when it is the next one out).
     */
    static ClientGet secondAsk(ClientGet g) {
        if (g.options().quorum() || g.routing() == RoutingMode.ITERATIVE) {
            return g;
        }
        return new ClientGet(g.key(), g.maxValues(), g.placemark(), g.wantHolders(),
                g.options().oneCopy().withQuorum(0));
    }

    /** A second ask's answer to a get that asked for one replica's: not flagged partial if fewer replicas were read. */
    static Message partialAsOk(Message m) {
        if (!(m instanceof GetReply g) || g.status() != Status.PARTIAL) {
            return m;
        }
        return reply(g, Status.OK, g.hops());
    }

    /**
     * The answer to a second ask, counting the first answer's exchange as one more hop: a one-hop get's target whose
     * answer was set aside did not answer the key itself, and its image must not learn that it did.
     */
    static Envelope afterSecondAsk(Envelope e) {
        if (!(e.body() instanceof GetReply g)) {
            return e;
        }
        return new Envelope(e.sender(), e.requestId(), reply(g, g.status(), g.hops() + 1));
    }

    private static GetReply reply(GetReply g, Status status, int hops) {
        return new GetReply(status, g.values(), g.placemark(), hops, g.detail(), g.cost(), g.holders(),
                g.replicasRead());
    }
}
