package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.env.Cancellable;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.Digest;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.IterativeGet;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.msg.Messages.LeafExchange;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.msg.Messages.RangeDigest;
import io.rattan.core.msg.Messages.RemoveReplica;
import io.rattan.core.msg.Messages.ReplicaRead;
import io.rattan.core.msg.Messages.Routed;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.msg.Messages.ClientWatch;
import io.rattan.core.msg.Messages.Watch;
import io.rattan.core.msg.Messages.WatchChange;
import io.rattan.core.msg.Messages.WatchEvent;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
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
    private final LocalReplica replica;
    private final Repair repair;
    private final GetAnswers gets;
    private final Router router;
    private final ClientRequests clients;
    private final PeerWrites writes;
    private final Watchers watchers;
    private final ClientWatches watches;
    private final WatchTicks watchTicks;
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
        this.ctx = new NodeContext(self, config, env.clock(), env.scheduler(), env.random(), listener);
        this.replica = new LocalReplica(config, env.store(), env.clock(), ctx.tag(), bugs);
        this.members = new Membership(ctx, this::leafSetChanged, this::answersResumed);
        this.outbox = new Outbox(ctx, env.transport(), env.requestIds(), members::sampleRtt);
        ctx.attach(outbox);
        this.tables = new TableMaintenance(ctx, members);
        this.join = new Join(ctx, members);
        this.repair = new Repair(ctx, members, replica, bugs);
        this.gets = new GetAnswers(ctx, members, replica);
        this.watchers = new Watchers(ctx, members, replica);
        this.router = new Router(ctx, members, gets, new ReplicaCoordinator(ctx, members, replica, bugs, repair::owed,
                watchers));
        this.clients = new ClientRequests(ctx, members, router, new IterativeGateway(ctx, members));
        this.writes = new PeerWrites(ctx, members, replica, repair, watchers);
        this.watches = new ClientWatches(ctx, this::handleClient, bugs);
        this.watchTicks = new WatchTicks(ctx, this::maintainWatches, () -> watches.active() || watchers.count() > 0);
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
        gets.allChanged();
        List<Address> bootstrap = List.copyOf(bootstrapNodes);
        tables.start();
        periodic(ctx.config().leafExchangeIntervalMillis(), this::maintainNeighbours);
        periodic(ctx.config().antiEntropyIntervalMillis(), this::antiEntropy);
        periodic(ctx.config().purgeIntervalMillis(), this::purgeExpired);
        join.start(bootstrap, moreToCome);
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
        if (!replica.healthy()) {
            // The copies refused meanwhile are missing here until repair brings them: unsettled until a while after.
            gets.storeFaulted();
        }
    }

    private void antiEntropy() {
        if (join.isJoined()) {
            repair.antiEntropyRound();
        }
    }

    /** A bounded batch of deletions, off the loop. */
    private void purgeExpired() {
        replica.offLoop(() -> {
            replica.purgeExpired();
            return null;
        }, (none, failure) -> {
            if (failure != null) {
                log.warn("{} purge failed: {}", ctx.tag(), failure.toString());
            }
        });
    }

    private void leafSetChanged() {
        leafSetChangedAtNanos = ctx.now();
        gets.leafSetChanged();
        repair.leafSetChanged();
    }

    private void answersResumed(Id member) {
        gets.answersResumed(member);
        repair.answersResumed(member);
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
                members.tableRowFill(), members.tableSize(), replica.size(), suspects, repair.totals(), watches.count(),
                watchers.count());
    }

    /**
     * Ready to take puts: joined, heard from directly by its nearest neighbour on each side (a node alone in its
     * overlay is ready at once), and its store not in a storage fault. Until then its view of the replica sets rests
     * on contacts it was told of.
     */
    public boolean isReady() {
        return join.isJoined() && !ctx.stopped() && members.heardFromNearestNeighbours() && replica.healthy();
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
        watchTicks.cancel();
        watches.stop();
    }

    /** Graceful leave: hands this node's values to the neighbours that become their replicas, then runs {@code done}. */
    public void leave(Runnable done) {
        if (ctx.stopped() || !join.isJoined()) {
            stop();
            done.run();
            return;
        }
        repair.handOff(() -> {
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
            if (m instanceof Routed routed) {
                // The origin hears the typed fault now rather than timing out.
                outbox.replyToOrigin(routed, new ErrorReply(LocalReplica.statusOf(ex), "store failed: "
                        + ex.getMessage()));
            }
        }
    }

    private void dispatch(Envelope e, Contact from, Message m) {
        switch (m.type()) {
            case PING -> reply(from, e, tables.answerPing(from));
            case PONG, HOP_ACK, STORE_ACK, WATCH_ACK, LEAF_EXCHANGE_REPLY, REMOVE_REPLICA_REPLY, DIGEST_WANT, RANGE_DIGEST_REPLY,
                 PUT_REPLY, GET_REPLY, REMOVE_REPLY, ITERATIVE_GET_REPLY, REPLICA_READ_REPLY, ERROR_REPLY ->
                    outbox.onReply(e);
            case ITERATIVE_GET -> {
                // Like a routed get, a node that has not joined stays silent and the gateway asks another.
                if (join.isJoined()) {
                    reply(from, e, gets.answerIterative((IterativeGet) m));
                }
            }
            case JOIN_INFO -> join.onJoinInfo(e, (JoinInfo) m);
            case JOIN_REQUEST, PUT_REQUEST, GET_REQUEST, REMOVE_REQUEST -> {
                // A node that has not (re)joined stays silent, so the previous hop times out and routes around it.
                if (join.isJoined()) {
                    reply(from, e, new HopAck());
                    if (m instanceof PutRequest p && writes.refusedPut(p)) {
                        return;
                    }
                    if (m instanceof GetRequest g) {
                        ctx.listener().getReceived(g.routing());
                    }
                    router.onRouted((Routed) m);
                }
            }
            case LEAF_EXCHANGE -> reply(from, e, members.answerExchange((LeafExchange) m));
            case LEAVE -> members.left(from);
            case STORE_REPLICAS -> writes.storeReplicas(from, e, (StoreReplicas) m);
            case REMOVE_REPLICA -> writes.removeReplica(from, e, (RemoveReplica) m);
            case REPLICA_READ -> reply(from, e, gets.answerReplicaRead(from, (ReplicaRead) m));
            case WATCH -> {
                if (join.isJoined()) {
                    reply(from, e, watchers.register(from, (Watch) m));
                    watchTicks.ensure();
                }
            }
            case WATCH_CHANGE -> watches.onChange(from, (WatchChange) m);
            case DIGEST -> repair.answers().answerDigest(e, from, (Digest) m);
            case RANGE_DIGEST -> repair.answers().answerRangeDigest(e, from, (RangeDigest) m);
            default -> log.debug("{} ignores a {} on the peer port from {}", ctx.tag(), m.type(), from);
        }
    }

    private void reply(Contact to, Envelope request, Message reply) {
        outbox.send(to.address(), request.requestId(), reply);
    }

    // ---------------------------------------------------------------- gateway
    /**
     * Serves a client request ({@code ClientPut}, {@code ClientGet}, {@code ClientRemove}, {@code ClientRing}) with
     * this node as gateway: the one entry for every client request, binary or HTTP, which passed
     * {@link ClientRequestValidator#check} where it entered. A get runs as its {@link ClientGet#options()} say: started
     * here and at {@code gateways − 1} other nodes this node knows (chosen at random), each of which routes it on as
     * if it had started there; with {@code hedge}, one more copy goes to one more node if no good answer came within
     * this node's hedge threshold; with {@code oneHop}, the copies go instead straight to the nodes this gateway's
     * one-hop image believes hold the key. The first good answer is the reply. {@code reply} is called exactly once,
     * on the event loop, with a {@code PutReply}, {@code GetReply}, {@code RemoveReply}, {@code RingReply} (the nodes
     * this node knows, answered at once) or {@code ErrorReply}.
     */
    public void handleClient(Message request, Consumer<Message> reply) {
        if (ctx.stopped()) {
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "node is stopping"));
        } else if (!join.isJoined()) {
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "node has not joined the overlay yet"));
        } else {
            try {
                clients.handle(request, reply);
            } catch (StoreException ex) {
                // A read of this node's own store failed before anything was routed on: the client hears it now.
                log.warn("{} store failure serving a client {}: {}", ctx.tag(), request.type(), ex.toString());
                reply.accept(new ErrorReply(LocalReplica.statusOf(ex), "store failed: " + ex.getMessage()));
            }
        }
    }

    /**
     * Starts a client's watch of {@code w.key()} with this node as gateway ({@link ClientWatches}): {@code sink} hears,
     * on the event loop, a VALUE event per live value, READY, then every change, until an ENDED event (the node stops,
     * or no replica took the watch) or {@link #unwatch}. Returns the watch's id, or 0 when it was refused (the sink has
     * heard ENDED: this node has not joined, or serves its most watches).
     */
    public long watch(ClientWatch w, Consumer<WatchEvent> sink) {
        if (ctx.stopped() || !join.isJoined()) {
            sink.accept(WatchEvent.ended(Status.UNAVAILABLE, ctx.stopped() ? "node is stopping"
                    : "node has not joined the overlay yet"));
            return 0;
        }
        watchTicks.ensure();
        return watches.watch(w, sink);
    }

    /** Ends the client watch {@code watchId}; its sink hears nothing more. */
    public void unwatch(long watchId) {
        watches.unwatch(watchId);
    }

    private void maintainWatches() {
        watches.tick();
        watchers.sweepIfDue();
    }
}
