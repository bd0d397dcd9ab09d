package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.Leave;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.NamespaceMessages.NamespaceDefs;
import io.rattan.core.msg.NamespaceMessages.NamespaceQuery;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Rattan node: an event-driven state machine. It reacts to three things — a message arrived
 * ({@link #receive}), a timer fired, a client asked ({@link #handleClient}) — and acts on the world only through
 * its {@link NodeEnv}. Every method must be called on the node's event loop (the env's scheduler).
 *
 * <p>This class keeps the node's lifecycle (start, stop, leave, its maintenance timers) and dispatches each input to
 * the job that owns it: {@link Membership} and {@link TableMaintenance} (who it knows), {@link Join}, {@link Router}
 * (routed requests), {@link GetAnswers}, {@link ReplicaCoordinator}, {@link PeerWrites} (what peers ask it to
 * write), {@link Repair}, {@link LocalReplica} (the store) and {@link ClientRequests} (this node as gateway);
 * docs/architecture.md has one line on each.
 */
public final class Node {

    private static final Logger log = LoggerFactory.getLogger(Node.class);

    private final NodeContext ctx;
    private final Outbox outbox;
    private final Membership members;
    private final TableMaintenance tables;
    private final Join join;
    // The default namespace's jobs (what every node had before namespaces), and the namespaces'.
    private final DataPlane plane;
    private final Namespaces namespaces;
    private final List<Cancellable> timers = new ArrayList<>();
    private boolean started;
    // For replicaView (diagnostics): when this node started, and when its leaf set last changed.
    private long startedAtNanos = -1;
    private long leafSetChangedAtNanos = -1;

    public Node(NodeConfig config, Contact self, NodeEnv env, NodeListener listener) {
        this(config, self, env, listener, PlantedBugs.NONE);
    }

    /**
     * A node with planted bugs, for the fault simulator's test that its checker catches them; only the virtual
     * world builds one. The real node has no flag that reaches this constructor.
     */
    public Node(NodeConfig config, Contact self, NodeEnv env, NodeListener listener, PlantedBugs bugs) {
        this.ctx = new NodeContext(self, config, env.clock(), env.scheduler(), env.random(), listener, env.key());
        this.members = new Membership(ctx, this::leafSetChanged, this::answersResumed);
        this.outbox = new Outbox(ctx, env.transport(), env.requestIds(), members::sampleRtt);
        ctx.attach(outbox);
        this.tables = new TableMaintenance(ctx, members);
        this.join = new Join(ctx, members, this::stop);
        this.plane = new DataPlane(ctx, members, join::isJoined, env.store(), env.clock(), bugs);
        this.namespaces = new Namespaces(ctx, members, join::isJoined, env.namespaces(), env.clock(), bugs, plane);
    }

    public Contact self() {
        return ctx.self();
    }

    public NodeConfig config() {
        return ctx.config();
    }

    /** Starts maintenance and joins through the first bootstrap that answers; no bootstrap: a new overlay. */
    public void start(List<Address> bootstrapNodes) {
        start(bootstrapNodes, false);
    }

    /**
     * As {@link #start(List)}; with {@code moreToCome} (bootstrap names still being resolved) an empty list waits for
     * {@link #bootstrapResolved} instead of starting a new overlay.
     */
    public void start(List<Address> bootstrapNodes, boolean moreToCome) {
        if (started) {
            throw new IllegalStateException(ctx.tag() + " already started");
        }
        started = true;
        startedAtNanos = ctx.now();
        // Whatever its disk holds, a node that starts holds none of the puts since it stopped.
        namespaces.allChanged();
        tables.start();
        periodic(ctx.config().leafExchangeIntervalMillis(), this::maintainNeighbours);
        periodic(ctx.config().antiEntropyIntervalMillis(), () -> {
            if (join.isJoined()) {
                namespaces.antiEntropyRound();
            }
        });
        // A bounded batch of deletions, off the loop.
        periodic(ctx.config().purgeIntervalMillis(), () -> namespaces.all().forEach(p -> p.purgeExpired(log)));
        join.start(bootstrapNodes, moreToCome);
    }

    /** Founds the overlay if {@code rounds} rounds of joins go unanswered; 0: now ({@link Join#foundIfUnanswered}). */
    public void foundIfUnanswered(int rounds) {
        join.foundIfUnanswered(rounds);
    }

    /** Until this node has joined: its bootstrap addresses as resolved now, which replace those it had. */
    public void bootstrapResolved(List<Address> addresses) {
        join.bootstrapResolved(addresses);
    }

    private void maintainNeighbours() {
        if (!join.isJoined()) {
            // Until its join completes, nobody should learn of this node and route to it.
            return;
        }
        members.exchangeRound();
        tables.probeRound();
        namespaces.storeFaultsNoted();
    }

    private void leafSetChanged() {
        leafSetChangedAtNanos = ctx.now();
        namespaces.leafSetChanged();
    }

    private void answersResumed(Id member) {
        namespaces.answersResumed(member);
    }

    private void periodic(long periodMillis, Runnable task) {
        long period = nanos(periodMillis);
        // A random phase keeps nodes started together from acting in lock step.
        long first = 1 + (long) (ctx.random().nextDouble() * period);
        int slot = timers.size();
        timers.add(null);
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (ctx.stopped()) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                // One failed round must not end the maintenance for good.
                log.warn("{} maintenance round failed: {}", ctx.tag(), e.toString());
            } finally {
                timers.set(slot, ctx.scheduler().schedule(period, tick[0]));
            }
        };
        timers.set(slot, ctx.scheduler().schedule(first, tick[0]));
    }

    /** This node's view of {@code key}'s replicas now ({@link ReplicaView}). */
    public ReplicaView replicaView(Id key) {
        return new ReplicaView(members.isReplica(key), members.isRoot(key), List.copyOf(members.replicaSet(key)),
                List.copyOf(members.replicaSetWithSuspects(key)), List.copyOf(members.leafMembers()),
                startedAtNanos, leafSetChangedAtNanos);
    }

    public boolean isJoined() {
        return join.isJoined();
    }

    public NodeStatus status() {
        int suspects = (int) members.leafMembers().stream().filter(c -> !members.usable(c)).count();
        return new NodeStatus(ctx.self(), join.isJoined(), isReady(), members.leafSetForStatus(),
                members.tableRowFill(), members.tableEntries(), plane.replica.size(), suspects, plane.repair.totals(),
                plane.watches.count(), plane.watchers.count(), namespaces.records(), join.refusal());
    }

    /**
     * Ready to take puts: joined, heard from its nearest neighbours (else its replica sets rest on contacts it was told
     * of), its store not in a storage fault, its clock fit to stamp expiries (a node alone is ready at once).
     */
    public boolean isReady() {
        return join.isJoined() && !ctx.stopped() && members.heardFromNearestNeighbours() && plane.replica.healthy()
                && ClientRequests.mayStampPuts(ctx, members);
    }

    /** Stops all timers; sends nothing. After this the node ignores every input. */
    public void stop() {
        if (ctx.stopped()) {
            return;
        }
        ctx.markStopped();
        for (Cancellable t : timers) {
            if (t != null) {
                t.cancel();
            }
        }
        outbox.failAll();
        namespaces.stop();
    }

    /** Graceful leave: hands this node's values to the neighbours that become their replicas, then runs {@code done}. */
    public void leave(Runnable done) {
        if (ctx.stopped() || !join.isJoined()) {
            stop();
            done.run();
            return;
        }
        namespaces.handOff(() -> {
            stop();
            done.run();
        });
    }

    /** In the routing table or the leaf set. */
    boolean isNeighbour(Id id) {
        return members.isNeighbour(id);
    }

    /** Whether this node keeps any state for {@code id} (an RTT estimate, a suspicion). */
    boolean knowsPeer(Id id) {
        return members.knowsPeer(id);
    }

    // ---------------------------------------------------------------- inbound
    /** The transport's connection to {@code a} was refused: nothing listens there ({@link FailureDetector#refused}). */
    public void peerRefused(Address a) {
        members.refused(a);
    }

    /** A frame arrived from a peer. */
    public void receive(Envelope e) {
        if (ctx.stopped() || e.sender() == null) {
            return;
        }
        Contact from = e.sender();
        Message m = e.body();
        // A joiner is not yet a member: nobody should route to it before its join completes.
        // A leaving node is not to be taken back in by its own goodbye.
        if (!(m instanceof JoinRequest j && j.joiner().id().equals(from.id())) && !(m instanceof Leave)) {
            members.heard(from);
        }
        try {
            dispatch(e, from, m);
        } catch (StoreException ex) {
            log.warn("{} store failure handling {}: {}", ctx.tag(), m.type(), ex.toString());
            if ((m instanceof InNamespace n ? n.body() : m) instanceof Routed routed) {
                // The origin hears the typed fault now rather than timing out.
                outbox.replyToOrigin(routed, new ErrorReply(LocalReplica.statusOf(ex), "store failed: "
                        + ex.getMessage()));
            }
        }
    }

    private void dispatch(Envelope e, Contact from, Message m) {
        if (Outbox.isReply(m.type())) {
            outbox.onReply(e);
            return;
        }
        switch (m.type()) {
            case PING -> reply(from, e, tables.answerPing(from));
            case JOIN_INFO -> join.onJoinInfo(e, (JoinInfo) m);
            case JOIN_REQUEST -> plane.routed(from, e, (Routed) m);
            case LEAF_EXCHANGE -> reply(from, e, members.answerExchange((LeafExchange) m));
            case LEAVE -> members.left(from);
            case IN_NAMESPACE -> inNamespace(e, from, (InNamespace) m);
            case NAMESPACE_DEFS -> { // learned whether it answers a question (then ends it) or was passed on
                namespaces.onDefinitions(from, (NamespaceDefs) m);
                if (e.requestId() != 0) {
                    outbox.onReply(e);
                }
            }
            case NAMESPACE_QUERY -> reply(from, e, namespaces.answer((NamespaceQuery) m));
            default -> {
                if (!plane.dispatch(e, from, m)) {
                    log.debug("{} ignores a {} on the peer port from {}", ctx.tag(), m.type(), from);
                }
            }
        }
    }

    private void inNamespace(Envelope e, Contact from, InNamespace n) {
        Message inner = n.body();
        Envelope unwrapped = new Envelope(e.sender(), e.requestId(), inner);
        DataPlane p = namespaces.plane(n.namespace());
        if (Outbox.isReply(inner.type())) {
            outbox.onReply(unwrapped);
        } else if (p == null) {
            namespaces.unserved(n.namespace(), from, unwrapped);
        } else if (!p.dispatch(unwrapped, from, inner)) {
            log.debug("{} ignores a {} of namespace {} from {}", ctx.tag(), inner.type(), n.namespace(), from);
        }
    }

    private void reply(Contact to, Envelope request, Message reply) {
        outbox.send(to.address(), request.requestId(), reply);
    }

    // ---------------------------------------------------------------- gateway
    /**
     * Serves a client request ({@code ClientPut}, {@code ClientGet}, {@code ClientRemove}, {@code ClientRing}; in a
     * namespace, wrapped in an {@code InNamespace}, which its limits check here) with this node as gateway: the one
     * entry for every client request, which passed {@link ClientRequestValidator#check} where it entered. A get runs
     * as its {@link ClientGet#options()} say (docs/architecture.md). {@code reply} is called exactly once, on the event
     * loop, with a {@code PutReply}, {@code GetReply}, {@code RemoveReply}, {@code RingReply} or {@code ErrorReply}.
     */
    public void handleClient(Message request, Consumer<Message> reply) {
        if (ctx.stopped()) {
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "node is stopping"));
        } else if (!join.isJoined()) {
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "node has not joined the overlay yet"));
        } else {
            DataPlane p = request instanceof InNamespace n ? planeAtGateway(n.namespace()) : plane;
            if (p == null) {
                reply.accept(new ErrorReply(Status.NOT_FOUND, "no namespace '" + ((InNamespace) request).namespace()
                        + "' is known here (it was never made, or was retired)"));
                return;
            }
            Message asked = request instanceof InNamespace n ? n.body() : request;
            try {
                p.handleClient(asked, reply);
            } catch (StoreException ex) {
                // A read of this node's own store failed before anything was routed on: the client hears it now.
                log.warn("{} store failure serving a client {}: {}", ctx.tag(), asked.type(), ex.toString());
                reply.accept(new ErrorReply(LocalReplica.statusOf(ex), "store failed: " + ex.getMessage()));
            }
        }
    }

    private DataPlane planeAtGateway(String namespace) {
        DataPlane p = namespaces.plane(namespace);
        if (p == null) {
            // Perhaps made while this node was away: asked for, so that the client's next try finds it.
            namespaces.unknownAtGateway(namespace);
        }
        return p;
    }

    /**
     * Starts a client's watch of {@code w.key()} in {@code namespace} with this node as gateway
     * ({@link ClientWatches}): {@code sink} hears, on the event loop, a VALUE event per live value, READY, then every
     * change, until an ENDED event (the node stops, or no replica took the watch) or {@link #unwatch}. Returns the
     * watch's id, or 0 when refused (the sink heard ENDED: not joined, no such namespace, or its most watches).
     */
    public long watch(String namespace, ClientWatch w, Consumer<WatchEvent> sink) {
        DataPlane p = ctx.stopped() || !join.isJoined() ? null : planeAtGateway(namespace);
        if (p == null) {
            sink.accept(WatchEvent.ended(ctx.stopped() || !join.isJoined() ? Status.UNAVAILABLE : Status.NOT_FOUND,
                    ctx.stopped() ? "node is stopping" : !join.isJoined() ? "node has not joined the overlay yet"
                            : "no namespace '" + namespace + "' is known here"));
            return 0;
        }
        return p.watch(w, sink);
    }

    /** {@link #watch(String, ClientWatch, Consumer)} in the default namespace. */
    public long watch(ClientWatch w, Consumer<WatchEvent> sink) {
        return watch(NamespaceDefinition.DEFAULT, w, sink);
    }

    /** Ends the client watch {@code watchId} of {@code namespace}; its sink hears nothing more. */
    public void unwatch(String namespace, long watchId) {
        DataPlane p = namespaces.plane(namespace);
        if (p != null) {
            p.watches.unwatch(watchId);
        }
    }

    // ---------------------------------------------------------------- namespaces
    /**
     * Makes namespace {@code d} here and passes it on to every node: {@code CREATED}; the same definition again:
     * {@code UNCHANGED}; another for the name: {@code CONFLICT}; a retired name: {@code RETIRED}; {@code FULL}.
     *
     * @throws IllegalArgumentException when this node cannot hold it (its k above the leaf set's half + 1)
     */
    public NamespaceChange defineNamespace(NamespaceDefinition d) {
        return namespaces.define(d);
    }

    /** Retires namespace {@code name} and passes it on: every node drops its values ({@link NamespaceChange}). */
    public NamespaceChange retireNamespace(String name) {
        return namespaces.retire(name);
    }

    /** The namespaces this node knows, retired ones included, by name. */
    public List<NamespaceDefinition> namespaces() {
        return namespaces.definitions();
    }
}
