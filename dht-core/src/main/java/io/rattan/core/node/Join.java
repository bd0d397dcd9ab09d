package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Address;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.ClusterTerms;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's way into the overlay: a join request routed to its id's root through one bootstrap after another until
 * a root answers. The contacts the join path names are held until then and pinged all at once when the root answers
 * ({@link SecondHandProbes#releaseHeld}): those that answer enter this node's tables, and each ping announces this node to
 * the one it reaches. The join completes when every ping has been answered or has timed out, one round trip after the
 * root's answer. Owned by the node's event loop.
 */
final class Join {

    private static final Logger log = LoggerFactory.getLogger(Join.class);
    private static final int JOIN_INFO_CONTACTS_MAX = 160;

    private final NodeContext ctx;
    private final Membership members;
    private List<Address> bootstrap = List.of();
    private int bootstrapIndex;
    // A join request is out and its timeout will try the next bootstrap; without one, new addresses start an attempt.
    private boolean attemptOut;
    // The root answered and the contacts of the join path are being pinged.
    private boolean rootAnswered;
    private boolean joined;
    // The request ids of this node's join attempts, until it has joined (one per attempt: a few).
    private final Set<Long> joinIds = new HashSet<>();
    // Why the cluster refused this node (its terms differ), or null; a refused node stops.
    private String refusal;
    // Join attempts that went unanswered in a row, and the rounds of them through every address listed that make
    // this node found the overlay (0: never).
    private int unanswered;
    private int foundAfterRounds;
    private final Runnable stopNode;

    /** {@code stopNode} stops the node once the cluster refused it: it takes no part in a cluster it differs from. */
    Join(NodeContext ctx, Membership members, Runnable stopNode) {
        this.ctx = ctx;
        this.members = members;
        this.stopNode = stopNode;
    }

    /**
     * Joins through the first of {@code bootstrapNodes} that answers; none: this node starts a new overlay, unless
     * {@code moreToCome} (bootstrap names not resolved yet): then it waits for {@link #bootstrapResolved}.
     */
    void start(List<Address> bootstrapNodes, boolean moreToCome) {
        bootstrap = List.copyOf(bootstrapNodes);
        if (bootstrap.isEmpty() && !moreToCome) {
            joined = true;
            log.info("{} started a new overlay at {}", ctx.tag(), ctx.self().address());
        } else {
            members.probes().holdLearned();
            attempt();
        }
    }

    boolean isJoined() {
        return joined;
    }

    /**
     * The node designated to found the overlay ({@code --founder-host}) found its bootstrap listing other nodes:
     * it joins them, unless {@code rounds} rounds of attempts through every address listed go unanswered. Nodes
     * that have not joined do not answer joins, so when every node of a set restarts at once the listed nodes wait
     * for one another, and this one founds the overlay they join. 0 founds it now (the list came to name this node
     * alone). A new list starts the count again.
     */
    void foundIfUnanswered(int rounds) {
        if (rounds == 0) {
            found("its bootstrap now lists no node but itself");
        }
        foundAfterRounds = rounds;
    }

    private void found(String why) {
        if (ctx.stopped() || joined || rootAnswered) {
            return;
        }
        log.warn("{} founds a new overlay at {}: {}", ctx.tag(), ctx.self().address(), why);
        rootAnswered = true;
        members.probes().releaseHeld(this::finish);
    }

    /** Why the cluster refused this node's join (its k, W or value limits differ from the cluster's), or null. */
    String refusal() {
        return refusal;
    }

    /**
     * Refuses {@code j} when this node is its first hop (the bootstrap the joiner chose) and the joiner names other
     * terms than this node's: the joiner is told why ({@code ERROR_REPLY(CONFLICT)}), and the request goes no
     * further. Only the first hop judges, and the joiner believes only it: one odd node deeper on the path cannot
     * stop every joiner routed through it. A joiner of protocol 11 names no terms.
     */
    static boolean refused(NodeContext ctx, JoinRequest j) {
        String differences = j.hops() != 0 || j.terms() == null ? "" : differences(ctx.config().terms(), j.terms());
        if (differences.isEmpty()) {
            return false;
        }
        log.info("{} refuses the join of {}, whose settings differ from this node's (as the joiner is to change them): "
                + "{}", ctx.tag(), j.joiner(), differences);
        ctx.outbox().send(j.joiner().address(), j.originRequestId(), new ErrorReply(Status.CONFLICT,
                "the cluster's nodes run with other settings, which every node must share: " + differences));
        return true;
    }

    /** How {@code joiner}'s terms differ from {@code own}, as the joiner's flags to change; empty when they do not. */
    static String differences(ClusterTerms own, ClusterTerms joiner) {
        StringBuilder out = new StringBuilder();
        differ(out, "--replicas", own.replicas(), joiner.replicas());
        differ(out, "--write-quorum", own.writeQuorum(), joiner.writeQuorum());
        differ(out, "--value-bytes-max", own.valueBytesMax(), joiner.valueBytesMax());
        differ(out, "--ttl-seconds-max", own.ttlSecondsMax(), joiner.ttlSecondsMax());
        return out.toString();
    }

    private static void differ(StringBuilder out, String flag, int own, int joiner) {
        if (own != joiner) {
            out.append(out.isEmpty() ? "" : ", ").append(flag).append(' ').append(own).append(" (this node: ")
                    .append(joiner).append(')');
        }
    }

    /**
     * The bootstrap addresses as resolved now (a name's addresses change as the peers behind it come and go): the
     * next attempt goes through them; an empty list waits for the next.
     */
    void bootstrapResolved(List<Address> addresses) {
        if (ctx.stopped() || joined || rootAnswered) {
            return;
        }
        if (!bootstrap.equals(addresses)) {
            unanswered = 0;
        }
        bootstrap = List.copyOf(addresses);
        if (!attemptOut) {
            attempt();
        }
    }

    private void attempt() {
        if (ctx.stopped() || joined || rootAnswered) {
            return;
        }
        if (bootstrap.isEmpty()) {
            log.info("{} has no bootstrap address yet; waiting for one", ctx.tag());
            return;
        }
        attemptOut = true;
        Address to = bootstrap.get(bootstrapIndex++ % bootstrap.size());
        Outbox outbox = ctx.outbox();
        long joinId = outbox.nextRequestId();
        joinIds.add(joinId);
        long timeout = nanos(ctx.config().requestTimeoutMillis());
        outbox.expect(joinId, ctx.now(), timeout, false, ReplyHandler.of(
                reply -> answered(reply, to),
                () -> {
                    attemptOut = false;
                    if (foundAfterRounds > 0 && ++unanswered >= foundAfterRounds * Math.max(1, bootstrap.size())) {
                        found("none of " + bootstrap + " answered " + unanswered + " join attempts in a row");
                        return;
                    }
                    log.info("{} got no join answer through {}; trying again", ctx.tag(), to);
                    attempt();
                }));
        // The first hop's ack is not awaited: the join's own timeout covers a dead bootstrap.
        outbox.send(to, outbox.nextRequestId(), new JoinRequest(ctx.self(), joinId, 0, ctx.config().terms()));
    }

    /**
     * An answer to the attempt through bootstrap {@code to}: the root's, or a refusal of this node's terms, believed
     * only from {@code to} itself (any node on the path sees the request's id); another's ends the attempt.
     */
    private void answered(Envelope reply, Address to) {
        if (!(reply.body() instanceof ErrorReply err)) {
            rootAnswered();
        } else if (err.status() == Status.CONFLICT && reply.sender() != null && reply.sender().address().equals(to)) {
            if (refusal == null && !joined) {
                refusal = err.detail();
                log.error("{} cannot join: {}", ctx.tag(), refusal);
                stopNode.run();
            }
        } else {
            log.info("{} got {} for its join through {} from {}; trying again", ctx.tag(), err.status(), to,
                    reply.sender());
            unanswered = 0;
            attemptOut = false;
            attempt();
        }
    }

    /** Contacts from a node on the join path, or the root's answer. */
    void onJoinInfo(Envelope e, JoinInfo info) {
        info.contacts().forEach(members::learn);
        if (info.fromRoot()) {
            ctx.outbox().onReply(e);
            // A root's answer that comes after its attempt timed out (the root or the path was slow) still joins:
            // the next attempt would meet the same slow nodes. Only answers to this node's own attempts count.
            if (!ctx.stopped() && joinIds.contains(e.requestId())) {
                rootAnswered();
            }
        }
    }

    /** A root answered one of this node's attempts: pings what the join path named, then completes the join. */
    private void rootAnswered() {
        if (rootAnswered || joined) {
            return;
        }
        rootAnswered = true;
        members.probes().releaseHeld(this::finish);
    }

    private void finish() {
        if (joined || ctx.stopped()) {
            return;
        }
        joined = true;
        joinIds.clear();
        log.info("{} joined: {} leaf-set members, {} routing entries", ctx.tag(), members.leafMembers().size(),
                members.tableSize());
        // The pings announced this node to every contact they reached; the exchanges also bring the members' own
        // leaf sets, which may name closer nodes than the join path knew.
        for (Contact c : members.leafMembers()) {
            members.exchangeWith(c);
        }
    }

    /**
     * What a joiner is told by node {@code self} of {@code members}: the leaf set and this node, then (not from its
     * root, or to fill up) routing-table entries, at most {@value #JOIN_INFO_CONTACTS_MAX}.
     */
    static List<Contact> contactsForJoiner(Membership members, Contact self, boolean root) {
        List<Contact> out = new ArrayList<>(members.leafMembers());
        out.add(self);
        if (!root || out.size() < JOIN_INFO_CONTACTS_MAX) {
            for (Contact c : members.tableEntries()) {
                if (out.size() >= JOIN_INFO_CONTACTS_MAX) {
                    break;
                }
                if (!out.contains(c)) {
                    out.add(c);
                }
            }
        }
        return out;
    }
}
