package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.net.Contact;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node as a gateway: it starts a client's put, get or remove (checked where it entered,
 * {@link ClientRequestValidator}) here or, for the copies of a raced, hedged or one-hop get, at other nodes, and
 * answers the client with the first good reply ({@link GetRace}'s, for a get) or the timeout. Owned by the node's
 * event loop.
 */
final class ClientRequests {

    private static final Logger log = LoggerFactory.getLogger(ClientRequests.class);

    /** Most nodes a gateway's one-hop image keeps: enough for the replicas of a working set of keys. */
    private static final int ONE_HOP_IMAGE_MAX = 1024;
    /** Leaf-set members asked the time when a put is held for the clock: as many as a period asks while unsettled. */
    private static final int ASK_NOW = 3;

    private final NodeContext ctx;
    private final Membership members;
    private final Router router;
    private final IterativeGateway iterative;
    private final PlantedBugs bugs;
    private final GetAnswerCheck answerCheck;
    // When a hedged get started here sends its extra copy.
    private final HedgeThreshold hedgeThreshold = HedgeThreshold.defaults();
    // Made on the first one-hop get: most nodes never serve one, and a simulated world holds many nodes.
    private OneHopRouter oneHopRouter;
    private HedgeThreshold oneHopThreshold;
    private final ClockWait clockWait;

    ClientRequests(NodeContext ctx, Membership members, Router router, GetAnswerCheck answerCheck, PlantedBugs bugs) {
        this.ctx = ctx;
        this.bugs = bugs;
        this.answerCheck = answerCheck;
        this.members = members;
        this.router = router;
        this.iterative = new IterativeGateway(ctx, members, answerCheck);
        this.clockWait = new ClockWait(ctx, () -> mayStampPuts(ctx, members), this::askLeafSetTheTime,
                (put, reply, arrived) -> start(put, null, false, reply, new HashSet<>(), arrived));
    }

    /** Asks the first leaf-set members the time now ({@code TableMaintenance} asks one or three a period). */
    private void askLeafSetTheTime() {
        List<Contact> leaves = members.leafMembers();
        for (Contact c : leaves.subList(0, Math.min(leaves.size(), ASK_NOW))) {
            ClockSamples.askTheTime(ctx, members, c);
        }
    }

    /** The node stopped: the puts held for the clock are answered. */
    void stop() {
        clockWait.stop();
    }

    /** Serves a request on a running, joined node: see {@link Node#handleClient}. */
    void handle(Message request, Consumer<Message> reply) {
        if (request instanceof ClientRing ring) {
            // Answered from what this node knows, at once: nothing is routed (RingPage).
            List<Contact> known = new ArrayList<>(members.leafMembers());
            known.addAll(members.tableEntries());
            known.add(ctx.self());
            known.removeIf(c -> !c.equals(ctx.self()) && !members.usable(c));
            reply.accept(RingPage.answer(ring, known, ctx.config().replicas()));
            return;
        }
        if (request instanceof ClientPut put && put.stamp() == null && !mayStampPuts(ctx, members)) {
            // The gateway stamps an unowned put's expiry (routedFrom): a clock that may be off would stamp it wrong.
            clockWait.hold(request, reply);
            return;
        }
        if (!(request instanceof ClientGet get)) {
            start(request, null, false, reply, new HashSet<>());
            return;
        }
        GetOptions options = get.options();
        if (options.oneHop()) {
            startOneHop(get, reply);
        } else if (options.maxCopies() == 1) {
            start(get, null, false, reply, new HashSet<>());
        } else {
            race(get, reply);
        }
    }

    /**
     * Whether this node may stamp the expiry of the puts it takes as a gateway: its clock may stamp
     * ({@code Clock#mayStamp}), or it has no neighbour to ask (a node alone).
     */
    static boolean mayStampPuts(NodeContext ctx, Membership members) {
        return ctx.clock().mayStamp() || members.leafMembers().isEmpty();
    }

    /**
     * Starts the get here and at {@code gateways − 1} other nodes this node knows (chosen at random), each of which
     * routes it on as if it had started there; a hedge copy goes to one more node if no good answer came within this
     * node's {@link HedgeThreshold}. The first good answer with a value is the reply (an empty one once every copy
     * answered, or after a grace: {@link GetRace}).
     */
    private void race(ClientGet get, Consumer<Message> reply) {
        List<Contact> others = members.usableNeighbours(c -> true);
        GetRace.start(ctx.scheduler(), ctx.clock(), get.options(), hedgeThreshold, ClientRequests::isGoodGet,
                (copy, answer) -> {
                    Contact via = copy == 0 || others.isEmpty() ? null
                            : others.remove(ctx.random().nextInt(others.size()));
                    start(get, via, false, answer, new HashSet<>());
                },
                result -> reply.accept(result.reply()));
    }

    /**
     * Sends the copies straight to the nodes this gateway's {@link OneHopRouter} believes hold the key (the fastest
     * known replica first, the next for the next copy), each of which answers if it is a replica and routes on if
     * not; every answer names the key's holders and so corrects the image. With an empty image the get routes from
     * here.
     */
    private void startOneHop(ClientGet request, Consumer<Message> reply) {
        if (oneHopRouter == null) {
            oneHopRouter = new OneHopRouter(ONE_HOP_IMAGE_MAX);
            oneHopThreshold = HedgeThreshold.defaults();
        }
        OneHopRouter router = oneHopRouter;
        GetOptions options = request.options();
        // Replicas it has not asked yet may be neighbours whose RTT it knows; ones it suspects are skipped (a copy to
        // one that died would wait out a timeout before being routed from here). This node comes last.
        List<Contact> targets = new ArrayList<>(router.targets(request.key(), ctx.config().replicas(), ctx.self(),
                members::srttNanos));
        targets.removeIf(c -> !c.equals(ctx.self()) && (!members.usable(c) || members.isRecentlyDead(c.id())));
        // Listed only when a copy goes beyond the known targets (copies start in order): most one-hop gets send one.
        List<Contact> others = new ArrayList<>();
        // One-hop gets are much faster than routed ones: their own threshold keeps them from pulling down the one
        // routed hedged gets use. The hedges follow the last of the copies sent at once.
        long[] hedgeWaits = options.hedge() ? router.hedgeWaitsNanos(
                targets.subList(Math.min(options.gateways(), targets.size()) - 1, targets.size()),
                oneHopThreshold.thresholdNanos(), members::srttNanos) : new long[0];
        GetRace.start(ctx.scheduler(), ctx.clock(), options, oneHopThreshold, hedgeWaits, ClientRequests::isGoodGet,
                (copy, answer) -> {
                    // Copies beyond the known targets start at random neighbours, as a routed race's do, rather
                    // than all at this node.
                    if (copy == targets.size()) {
                        others.addAll(members.usableNeighbours(c -> !targets.contains(c)));
                    }
                    Contact target = copy < targets.size() ? targets.get(copy)
                            : others.isEmpty() ? ctx.self() : others.remove(ctx.random().nextInt(others.size()));
                    sendOneHopCopy(router, request, target, answer);
                },
                result -> reply.accept(result.reply()));
    }

    /**
     * One copy of a one-hop get, to {@code target}; its answer (or the re-route a timeout caused) teaches the image.
     * Every answer names the key's holders: that is how the image learns.
     */
    private void sendOneHopCopy(OneHopRouter router, ClientGet get, Contact target, Consumer<Message> answer) {
        Contact via = target.equals(ctx.self()) ? null : target;
        Set<Id> tried = new HashSet<>();
        long sent = ctx.now();
        start(get, via, true, m -> {
            if (via != null && tried.contains(via.id())) {
                // The target did not answer its hop; the get was routed from here instead.
                router.forget(target);
            } else {
                int directHops = via == null ? 0 : 1;
                router.answered(get.key(), target, m, ctx.now() - sent,
                        m instanceof GetReply g && g.hops() == directHops);
            }
            answer.accept(m);
        }, tried);
    }

    /**
     * An answer that ends a race: OK, or a quorum get's PARTIAL (its replicas were not all reachable from the node
     * that served it; another copy would most likely meet the same replicas, and the client is told it is partial).
     */
    private static boolean isGoodGet(Message m) {
        return m instanceof GetReply g && (g.status() == Status.OK || g.status() == Status.PARTIAL);
    }

    /**
     * Starts a valid client request here ({@code via} null) or, for a get, at node {@code via}, which routes it on;
     * either way this node is its origin and {@code reply} gets the answer or the timeout. {@code askHolders}: the
     * answer names the key's replicas whatever the client asked. {@code tried} is the first hop's tried set: it holds
     * {@code via}'s id afterwards if the hop to {@code via} timed out and the request was routed from here.
     */
    private void start(Message request, Contact via, boolean askHolders, Consumer<Message> reply, Set<Id> tried) {
        start(request, via, askHolders, reply, tried, ctx.now());
    }

    /** As above, for a request that arrived at {@code started} ({@link ClockWait} held it): its timeout runs from then. */
    private void start(Message request, Contact via, boolean askHolders, Consumer<Message> reply, Set<Id> tried,
                       long started) {
        start(request, via, askHolders, reply, tried, started, null);
    }

    /**
     * As above. A get's first answer is checked ({@link #checkedAnswer}); {@code setAside}, for its second ask, is the
     * first answer, which stands if none comes by the first deadline but for {@link GetAnswerCheck#atDeadline}'s veto.
     */
    private void start(Message request, Contact via, boolean askHolders, Consumer<Message> reply, Set<Id> tried,
                       long started, Envelope setAside) {
        long id = ctx.outbox().nextRequestId();
        MessageType op = request.type();
        Routed routed = routedFrom(request, id, askHolders);
        long timeout = nanos(ctx.config().requestTimeoutMillis());
        Runnable timedOut = setAside != null ? () -> answered(request, started, answerCheck.atDeadline(
                (ClientGet) request, setAside.sender(), setAside.body()).passOn(setAside), reply) : () -> {
            ctx.listener().clientRequestDone(op, Status.TIMEOUT, ctx.now() - started, 0);
            reply.accept(new ErrorReply(ctx.stopped() ? Status.UNAVAILABLE : Status.TIMEOUT,
                    "no answer within " + ctx.config().requestTimeoutMillis() + " ms"));
        };
        Runnable shed = () -> {
            // The oldest request in flight when the node's table of them was full: overload sheds it.
            ctx.listener().clientRequestDone(op, Status.UNAVAILABLE, ctx.now() - started, 0);
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "shed: this gateway is overloaded; retry"));
        };
        Consumer<Message> attributed = m -> answered(request, started, new Envelope(null, id, m), reply);
        if (routed instanceof PutRequest p && attributesPutAcks()) {
            AttributedWrite.put(ctx, p, ackQuorum(), started + timeout, attributed, timedOut, shed,
                    () -> resend(p, started)).start(id);
        } else if (routed instanceof RemoveRequest r && attributesRemoveAcks()) {
            AttributedWrite.remove(ctx, r, ctx.config().writeQuorum(), started + timeout, attributed, timedOut, shed,
                    () -> sendByRandomHop(r)).start(id);
        } else {
            ctx.outbox().expect(id, started, started + timeout - ctx.now(), true, ReplyHandler.of(
                    e -> checkedAnswer(request, askHolders, reply, started, setAside, e), timedOut, shed));
        }
        if (via != null) {
            router.forward(routed, via, tried);
        } else if (router.servedHere(routed)) {
            return;
        } else if (request instanceof ClientGet g && g.routing() == RoutingMode.ITERATIVE
                && !members.closerNeighbours(g.key(), 1).isEmpty()) {
            // A gateway that knows no closer node is the key's root: it serves the get as a routed one would (it has
            // no one to ask, and need not be a sure replica: a small ring's gap may be wider than half of it).
            iterative.start(g, id, started + timeout);
        } else {
            router.route(routed, new HashSet<>());
        }
    }

    /**
     * Passes a routed request's answer on, but a get's that {@link GetAnswerCheck} sets aside: the closest node known
     * is asked instead, for a quorum read, by the first deadline (once, unless {@link GetAnswerCheck#judgeAgain} says).
     */
    private void checkedAnswer(Message request, boolean askHolders, Consumer<Message> reply, long started,
                               Envelope setAside, Envelope e) {
        GetAnswerCheck.Verdict v = !(request instanceof ClientGet g) ? GetAnswerCheck.Verdict.TAKE : setAside == null
                ? answerCheck.judge(g, e.sender(), e.body()) : answerCheck.judgeAgain(g, setAside, e);
        if (v.instead() == null) {
            answered(request, started, setAside == null ? v.passOn(e) : GetAnswerCheck.afterSecondAsk(e), reply);
            return;
        }
        ClientGet get = (ClientGet) request;
        start(GetAnswerCheck.secondAsk(get), v.instead(), askHolders,
                get.options().quorum() ? reply : m -> reply.accept(GetAnswerCheck.partialAsOk(m)), new HashSet<>(),
                started, setAside == null ? e : setAside);
    }

    /**
     * Sends a put once more, by a random neighbour as its first hop (from here when it knows none). Its TTL is what is
     * left of it, in whole seconds: a root that sets aside the gateway's stamp (a gateway clock ahead) takes its own
     * clock + TTL, which must not outlive the first try's. An unowned put with less than a second left goes no more.
     */
    private void resend(PutRequest p, long startedNanos) {
        int ttl = p.ttlSeconds();
        if (p.stamp() == null) {
            ttl -= (int) ((ctx.now() - startedNanos + NodeContext.nanos(999)) / NodeContext.nanos(1000));
            if (ttl < 1) {
                return;
            }
        }
        sendByRandomHop(p.withTtlSeconds(ttl));
    }

    /** Sends a write again, by a random neighbour as its first hop (from here when it knows none). */
    private void sendByRandomHop(Routed again) {
        List<Contact> others = members.usableNeighbours(c -> true);
        if (others.isEmpty()) {
            router.route(again, new HashSet<>());
        } else {
            router.forward(again, others.get(ctx.random().nextInt(others.size())), new HashSet<>());
        }
    }

    /**
     * Whether this gateway's puts wait for W replicas' own acks ({@link AttributedWrite}): yes unless told to take the
     * root's word (nodes of 13, which send none, may be in the cluster). Every version this build speaks has them.
     */
    private boolean attributesPutAcks() {
        return ctx.config().putAcksRequired() && !bugs.putAcksUnattributed();
    }

    /**
     * Whether this gateway's removes wait for W replicas' own acks of their tombstones: yes unless told to take the
     * root's word (nodes of 14, which send none, may be in the cluster) or speaking 14 itself.
     */
    private boolean attributesRemoveAcks() {
        return ctx.config().removeAcksRequired() && ctx.config().protocolVersion() >= MessageCodec.VERSION_REMOVE_ACKS
                && !bugs.removeAcksUnattributed();
    }

    /** W, or one less with the planted bug that acknowledges puts below it. */
    private int ackQuorum() {
        int w = ctx.config().writeQuorum();
        return bugs.putAckBelowQuorum() ? Math.max(1, w - 1) : w;
    }

    /** The routed request a client request becomes, with this node as its origin waiting on request {@code id}. */
    private Routed routedFrom(Message request, long id, boolean askHolders) {
        switch (request.type()) {
            case CLIENT_PUT -> {
                ClientPut p = (ClientPut) request;
                // The expiry is set here, once: the gateway took the put now (RequestMessages.PutRequest).
                long expiresAt = p.stamp() != null ? p.stamp().expiresAtMillis()
                        : ctx.clock().epochMillis() + p.ttlSeconds() * 1000L;
                return new PutRequest(p.key(), p.value(), p.ttlSeconds(), expiresAt, p.binding(), ctx.self(), id, 0,
                        p.stamp(), p.condition(), null).signedBy(ctx.key(), ctx.config().namespace());
            }
            case CLIENT_GET -> {
                ClientGet g = (ClientGet) request;
                // A quorum get carries its R resolved here, so that the replica serving it needs no default of its own.
                return new GetRequest(g.key(), g.routing(), g.maxValues(), g.placemark(), ctx.self(), id, 0,
                        g.wantHolders() || askHolders, Cost.ZERO,
                        g.options().readQuorum(ctx.config().readQuorumDefault()), g.options().filter());
            }
            case CLIENT_REMOVE -> {
                ClientRemove r = (ClientRemove) request;
                int ttl = r.ttlSeconds() <= 0 ? ctx.config().ttlSecondsMax() : r.ttlSeconds();
                return new RemoveRequest(r.key(), r.valueHash(), r.secret(), ttl, ctx.self(), id, 0);
            }
            default -> throw new IllegalStateException("not a client request, yet valid: " + request.type());
        }
    }

    private void answered(Message request, long started, Envelope e, Consumer<Message> reply) {
        Message m = e.body();
        ctx.listener().clientRequestDone(request.type(), statusOf(m), ctx.now() - started,
                m instanceof GetReply g ? g.hops() : 0);
        if (m instanceof GetReply g && request instanceof ClientGet cg) {
            ctx.listener().clientGetCost(cg.routing(), g.cost());
            if (g.values().isEmpty() && log.isDebugEnabled()) {
                // With Router's DEBUG line at the answering node, this names who gave a client an empty answer.
                log.debug("{} get of {} answered {} with no value by {} after {} hops", ctx.tag(), cg.key().toHex(),
                        g.status(), e.sender(), g.hops());
            }
        }
        reply.accept(m);
    }

    /** The status of a put's, get's or remove's answer, or of an error reply; INTERNAL for anything else. */
    static Status statusOf(Message m) {
        switch (m.type()) {
            case PUT_REPLY:
                return ((PutReply) m).status();
            case GET_REPLY:
                return ((GetReply) m).status();
            case REMOVE_REPLY:
                return ((RemoveReply) m).status();
            case ERROR_REPLY:
                return ((ErrorReply) m).status();
            default:
                return Status.INTERNAL;
        }
    }
}
