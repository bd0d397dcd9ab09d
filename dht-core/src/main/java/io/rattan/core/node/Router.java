package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.net.Contact;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves routed requests toward their key's root and delivers them where they end. Puts, removes and joins route by
 * Pastry's rule: inside the leaf-set range the closest leaf, else the routing-table slot for the next digit, else any
 * known node with as long a shared prefix that is closer. Gets route by their {@link RoutingMode}'s
 * {@link NextHopPolicy} among every neighbour that makes progress. Each hop acknowledges; a hop that does not within
 * its RTO is suspected and the request is re-routed at once, and while no other way on is left its late ack is waited
 * for. Owned by the node's event loop.
 */
final class Router {

    private static final Logger log = LoggerFactory.getLogger(Router.class);
    private static final int HOPS_MAX = 64;

    private final NodeContext ctx;
    private final Membership members;
    private final GetAnswers gets;
    private final ReplicaCoordinator coordinator;
    private final NextHopPolicy greedy = new GreedyPolicy();
    private final NextHopPolicy delayAware = new DelayAwarePolicy();

    Router(NodeContext ctx, Membership members, GetAnswers gets, ReplicaCoordinator coordinator) {
        this.ctx = ctx;
        this.members = members;
        this.gets = gets;
        this.coordinator = coordinator;
    }

    /**
     * A routed request arrived from a peer (and was acknowledged): serve it here or send it on. {@code fromOrigin}:
     * the peer that sent it is its origin, as its verified connection proves.
     */
    void onRouted(Routed m, boolean fromOrigin) {
        if (m.hops() > HOPS_MAX) {
            log.warn("{} drops a {} for {} after {} hops", ctx.tag(), ((Message) m).type(), m.key().shortHex(),
                    m.hops());
            return;
        }
        if (servedHere(m)) {
            return;
        }
        Set<Id> tried = new HashSet<>();
        if (m instanceof JoinRequest j) {
            if (Join.refused(ctx, j)) {
                return;
            }
            // A restarting node may still sit in our tables under its own id: never route its join to itself.
            tried.add(j.joiner().id());
        }
        route(m, new Progress(tried, fromOrigin));
    }

    /**
     * The one place that decides whether a routed request that reached this node (from a peer, or started here) ends
     * here before any routing: a get that this node answers as a replica ({@link GetAnswers#answers}) is served at
     * once. Returns whether it was.
     */
    boolean servedHere(Routed m) {
        if (m instanceof GetRequest g && gets.answers(g)) {
            deliver(m, false);
            return true;
        }
        return false;
    }

    /**
     * Sends {@code m}, a request this node is the origin of, to the best next hop not in {@code tried}, or serves it
     * here when no node is better.
     */
    void route(Routed m, Set<Id> tried) {
        route(m, new Progress(tried, true));
    }

    private void route(Routed m, Progress progress) {
        if (progress.settled) {
            return;
        }
        Set<Id> tried = progress.tried;
        Contact next = m instanceof GetRequest g ? nextHopForGet(g, tried) : nextHop(m.key(), tried);
        if (next.equals(ctx.self()) && !(m instanceof JoinRequest) && closerNodeExists(m)) {
            // Only suspects (or nodes this request tried) are closer. A suspect answered late, and is being probed,
            // not yet found dead: a node that stalled a moment ago (a JVM compiling on a loaded host) is likelier to
            // take the request than a refusal is to help. Each closer node is tried once.
            next = nextHop(m.key(), c -> !tried.contains(c.id()));
        }
        if (m instanceof GetRequest g && !next.equals(ctx.self())) {
            ctx.listener().getForwarded(g.routing(), next, members.srttNanos(next.id()));
        }
        if (next.id().equals(ctx.self().id())) {
            // A join is served by the closest node that answers, as Pastry routes around a failed root: its leaf
            // set names the unreachable root too, so the joiner still lands in the right place. Dropping it instead
            // kept a node out of the overlay for as long as its root stayed slow.
            if (closerNodeExists(m) && !(m instanceof JoinRequest)) {
                if (progress.awaited > 0) {
                    // A hop that is late, not lost, may still take it: wait for its ack or its give-up time.
                    return;
                }
                // Every node closer to the key was tried and none took it: serving it here would answer for nodes
                // that may hold the data (or store a put where no get will look). Fail, and the client retries.
                progress.settled = true;
                ctx.outbox().replyToOrigin(m, new ErrorReply(Status.UNAVAILABLE, "no reachable node closer to the key"));
                return;
            }
            progress.settled = true;
            deliver(m, progress.fromOrigin);
            return;
        }
        if (m instanceof JoinRequest j && tried.size() <= 1) {
            // A node on the join path gives the joiner its contacts; the root gives its leaf set in deliver().
            ctx.outbox().send(j.joiner().address(), 0, new JoinInfo(Join.contactsForJoiner(members, ctx.self(), false), false));
        }
        forward(m, next, progress);
    }

    /**
     * Sends {@code m} one hop on, to {@code next}. If the hop is not acknowledged within {@code next}'s RTO,
     * {@code next} is suspected, added to {@code tried} and {@code m} routed again from here; the late ack still
     * counts until the request timeout, so a slow hop that is the only way on is waited for, not given up
     * ({@link PatientRequest}). A get carries its cost: this forward and the ack it will get back are counted before
     * sending.
     */
    void forward(Routed m, Contact next, Set<Id> tried) {
        forward(m, next, new Progress(tried, true));
    }

    private void forward(Routed m, Contact next, Progress progress) {
        Routed out = m.nextHop();
        Cost sent = Cost.ZERO;
        if (out instanceof GetRequest g) {
            sent = ctx.outbox().sizeOf(ctx.self(), g);
            out = g.spent(sent.plus(ctx.outbox().sizeOf(next, new HopAck())));
        }
        Routed again = m instanceof GetRequest g ? g.spent(sent) : m;
        progress.awaited++;
        PatientRequest.send(ctx, members, next, (Message) out, nanos(ctx.config().requestTimeoutMillis()),
                () -> {
                    progress.tried.add(next.id());
                    if (!ctx.stopped()) {
                        route(again, progress);
                    }
                },
                ReplyHandler.of(
                        ack -> {
                            progress.awaited--;
                            // The next hop has it: whatever a re-route from here would do is done there.
                            progress.settled = true;
                        },
                        () -> {
                            progress.awaited--;
                            if (!ctx.stopped()) {
                                route(again, progress);
                            }
                        }));
    }

    /**
     * One routed request's state at this node: the hops tried, how many hops are still awaited (late but not given
     * up), and whether it is settled (a hop took it, or it was served or refused here).
     */
    private static final class Progress {
        final Set<Id> tried;
        // Came straight from its origin, or this node is its origin: a put's origin needs no signature then.
        final boolean fromOrigin;
        int awaited;
        boolean settled;

        Progress(Set<Id> tried, boolean fromOrigin) {
            this.tried = tried;
            this.fromOrigin = fromOrigin;
        }
    }

    /** Serves {@code m} here: it reached the node that answers it ({@code fromOrigin}: {@link Progress}). */
    void deliver(Routed m, boolean fromOrigin) {
        switch (((Message) m).type()) {
            case GET_REQUEST -> gets.serve((GetRequest) m);
            case PUT_REQUEST -> coordinator.put((PutRequest) m, fromOrigin);
            case REMOVE_REQUEST -> coordinator.remove((RemoveRequest) m);
            case JOIN_REQUEST -> {
                JoinRequest j = (JoinRequest) m;
                if (!j.joiner().id().equals(ctx.self().id())) {
                    ctx.outbox().send(j.joiner().address(), j.originRequestId(),
                            new JoinInfo(Join.contactsForJoiner(members, ctx.self(), true), true));
                }
            }
            default -> throw new IllegalStateException("not a routed message: " + m);
        }
    }

    /** Pastry's next hop for {@code key}, skipping {@code tried} and suspects; this node when none is better. */
    private Contact nextHop(Id key, Set<Id> tried) {
        return nextHop(key, c -> !tried.contains(c.id()) && members.usable(c));
    }

    private Contact nextHop(Id key, Predicate<Contact> ok) {
        if (members.leafSetCovers(key)) {
            return members.closestLeaf(key, ok);
        }
        Contact viaTable = members.tableCandidate(key, ok);
        if (viaTable != null) {
            return viaTable;
        }
        int shared = ctx.self().id().sharedPrefixLength(key);
        Contact best = ctx.self();
        for (Contact c : members.leafMembers()) {
            best = closerWithPrefix(key, shared, best, c, ok);
        }
        for (Contact c : members.tableEntries()) {
            best = closerWithPrefix(key, shared, best, c, ok);
        }
        return best;
    }

    /**
     * A get's next hop: the routing mode's policy chooses among every usable neighbour strictly closer to the key
     * (leaf set and routing table); this node when none is.
     */
    private Contact nextHopForGet(GetRequest g, Set<Id> tried) {
        Id key = g.key();
        Id self = ctx.self().id();
        List<Contact> candidates = members.usableNeighbours(c -> !tried.contains(c.id()) && c.id().isCloserTo(key,
                self));
        if (candidates.isEmpty()) {
            return ctx.self();
        }
        NextHopPolicy policy = g.routing() == RoutingMode.GREEDY ? greedy : delayAware;
        return policy.choose(key, self, candidates, members.rtts());
    }

    private static Contact closerWithPrefix(Id key, int shared, Contact best, Contact c, Predicate<Contact> ok) {
        if (ok.test(c) && c.id().sharedPrefixLength(key) >= shared && c.id().isCloserTo(key, best.id())) {
            return c;
        }
        return best;
    }

    /** Whether, health aside, Pastry's rule would send {@code m} on from here (a joiner never counts as its root). */
    private boolean closerNodeExists(Routed m) {
        Id joiner = m instanceof JoinRequest j ? j.joiner().id() : null;
        return !nextHop(m.key(), c -> !c.id().equals(joiner)).equals(ctx.self());
    }
}
