package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
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
 * the last value, values a filter drops). So a gateway that knows k usable nodes closer to the key than the sender of
 * an answer with values (itself among them), or one closer than the sender of an empty answer, knows the sender
 * answered out of turn: a node on the path that lies (a value nobody put, an empty answer), or one whose view lags
 * this one's, or a replica with nothing to return. Either way the gateway asks the closest node it knows instead. What
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
     * The node to ask instead of taking {@code answer} to {@code get} from {@code sender} (see the static form), counted
     * and logged as set aside; null when it is taken, always with the check planted off.
     */
    Contact askInstead(ClientGet get, Contact sender, Message answer) {
        Contact instead = bugs.getAnswersUnchecked() ? null
                : askInstead(members, ctx.self(), get, sender, answer, ctx.config().replicas());
        if (instead != null) {
            log.debug("{} sets aside {}'s answer to a get, no replica's (or root's) in this view; asks {}", ctx.tag(),
                    sender, instead);
            ctx.listener().getAnswerSetAside();
        }
        return instead;
    }

    /**
     * The node to ask instead when {@code answer}, from {@code sender}, cannot have come from a replica (or, empty,
     * from the root) of {@code get}'s key in the view of {@code self}, a gateway with {@code members}' view; null when
     * it may have, or comes from this node, or is no get's answer, or no other node known is closer (this gateway is
     * closest: such a get was served here, unless it was a copy another node started).
     */
    static Contact askInstead(Membership members, Contact self, ClientGet get, Contact sender, Message answer,
                              int replicas) {
        if (sender == null || sender.id().equals(self.id()) || !(answer instanceof GetReply reply)) {
            return null;
        }
        Id key = get.key();
        List<Contact> closer = members.usableNeighbours(c -> !c.id().equals(sender.id())
                && c.id().isCloserTo(key, sender.id()));
        int known = closer.size() + (self.id().isCloserTo(key, sender.id()) ? 1 : 0);
        boolean rootOnly = reply.values().isEmpty() && !get.options().quorum();
        if (closer.isEmpty() || known < (rootOnly ? 1 : replicas)) {
            return null;
        }
        Comparator<Contact> nearer = (a, b) -> a.id().isCloserTo(key, b.id()) ? -1
                : b.id().isCloserTo(key, a.id()) ? 1 : 0;
        return closer.stream().min(nearer).orElseThrow();
    }

    /**
     * The answer to a second ask, counting the first answer's exchange as one more hop: a one-hop get's target whose
     * answer was set aside did not answer the key itself, and its image must not learn that it did.
     */
    static Envelope afterSecondAsk(Envelope e) {
        if (!(e.body() instanceof GetReply g)) {
            return e;
        }
        return new Envelope(e.sender(), e.requestId(), new GetReply(g.status(), g.values(), g.placemark(), g.hops() + 1,
                g.detail(), g.cost(), g.holders(), g.replicasRead()));
    }
}
