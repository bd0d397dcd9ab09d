package io.rattan.core.node;

import io.rattan.core.env.Clock;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import io.rattan.core.store.Store;
import io.rattan.core.testing.PlantedBugs;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The jobs that hold and serve one namespace's values at this node: its store ({@link LocalReplica}), replication
 * ({@link ReplicaCoordinator}, {@link PeerWrites}), repair, gets, watches and this node as its gateway. Each
 * namespace has its own, over the node's one membership seen with the namespace's k
 * ({@link Membership#withReplicas}), with its own settings and an outbox that wraps what it sends in the namespace
 * ({@link Outbox#inNamespace}); the default namespace's sends bare, as before namespaces existed.
 */
final class DataPlane {

    private final NodeContext ctx;
    private final BooleanSupplier joined;
    // The default namespace's requests were checked where they entered, with the node's limits, which are its own.
    private final boolean checkRequests;
    final LocalReplica replica;
    final Repair repair;
    final GetAnswers gets;
    final Router router;
    final Watchers watchers;
    final ClientWatches watches;
    final WatchTicks watchTicks;
    private final ClientRequests clients;
    private final PeerWrites writes;

    /**
     * The jobs of the namespace whose context is {@code ctx} (its config holds the namespace's k, W and limits), over
     * {@code store}. (A namespace's default routing is the HTTP gateway's to apply: a binary client names its own.)
     */
    DataPlane(NodeContext ctx, Membership nodeMembers, BooleanSupplier joined, Store store, Clock clock,
              PlantedBugs bugs) {
        this.ctx = ctx;
        this.joined = joined;
        this.checkRequests = ctx.isNamespace();
        Membership members = nodeMembers.withReplicas(ctx.config().replicas());
        this.replica = new LocalReplica(ctx.config(), store, clock, ctx.tag(), bugs);
        this.gets = new GetAnswers(ctx, members, replica);
        this.repair = new Repair(ctx, members, replica, bugs, gets.reach());
        this.watchers = new Watchers(ctx, members, replica);
        this.router = new Router(ctx, members, gets, new ReplicaCoordinator(ctx, members, replica, bugs, repair::owed,
                watchers));
        this.clients = new ClientRequests(ctx, members, router, new GetAnswerCheck(ctx, members, bugs), bugs);
        this.writes = new PeerWrites(ctx, members, replica, repair, watchers);
        this.watches = new ClientWatches(ctx, this::handleClient, bugs);
        this.watchTicks = new WatchTicks(ctx, this::maintainWatches, () -> watches.active() || watchers.count() > 0);
    }

    /** A peer's message to this namespace (its envelope's body unwrapped); false when it is none of its jobs'. */
    boolean dispatch(Envelope e, Contact from, Message m) {
        switch (m.type()) {
            case ITERATIVE_GET -> {
                // Like a routed get, a node that has not joined stays silent and the gateway asks another.
                if (joined.getAsBoolean()) {
                    reply(from, e, gets.answerIterative((IterativeGet) m));
                }
            }
            case PUT_REQUEST, GET_REQUEST, REMOVE_REQUEST -> routed(from, e, (Routed) m);
            case STORE_REPLICAS -> writes.storeReplicas(from, e, (StoreReplicas) m);
            case REMOVE_REPLICA -> writes.removeReplica(from, e, (RemoveReplica) m);
            case REPLICA_READ -> reply(from, e, gets.answerReplicaRead(from, (ReplicaRead) m, repair.secrets()));
            case WATCH -> {
                if (joined.getAsBoolean()) {
                    reply(from, e, watchers.register(from, (Watch) m));
                    watchTicks.ensure();
                }
            }
            case WATCH_CHANGE -> watches.onChange(from, (WatchChange) m);
            case DIGEST -> repair.answers().answerDigest(e, from, (Digest) m);
            case RANGE_DIGEST -> repair.answers().answerRangeDigest(e, from, (RangeDigest) m);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** A routed request (a join's too, in the default namespace): acknowledged at once, then routed on or served. */
    void routed(Contact from, Envelope e, Routed m) {
        // A node that has not (re)joined stays silent, so the previous hop times out and routes around it.
        if (!joined.getAsBoolean()) {
            return;
        }
        reply(from, e, new HopAck());
        if (m instanceof PutRequest p && writes.refusedPut(p)) {
            return;
        }
        if (m instanceof GetRequest g) {
            ctx.listener().getReceived(g.routing());
        }
        router.onRouted(m, m.origin().id().equals(from.id()));
    }

    private void reply(Contact to, Envelope request, Message reply) {
        ctx.outbox().send(to.address(), request.requestId(), reply);
    }

    /** A client's request to this namespace, with this node as its gateway ({@code Node#handleClient}). */
    void handleClient(Message request, Consumer<Message> reply) {
        Optional<ErrorReply> refused = checkRequests ? ClientRequestValidator.check(request, ctx.config())
                : Optional.empty();
        if (refused.isPresent()) {
            reply.accept(refused.get());
            return;
        }
        clients.handle(request, reply);
    }

    long watch(ClientWatch w, Consumer<WatchEvent> sink) {
        watchTicks.ensure();
        return watches.watch(w, sink);
    }

    private void maintainWatches() {
        watches.tick();
        watchers.sweepIfDue();
    }

    /** A bounded batch of deletions of expired records, off the loop. */
    void purgeExpired(Logger log) {
        replica.offLoop(() -> {
            replica.purgeExpired();
            return null;
        }, (none, failure) -> {
            if (failure != null) {
                log.warn("{} purge failed: {}", ctx.tag(), failure.toString());
            }
        });
    }

    void leafSetChanged() {
        gets.leafSetChanged();
        repair.leafSetChanged();
    }

    /** The node stopped: ends its watches and their timer, and answers the puts held for the clock. */
    void stop() {
        watchTicks.cancel();
        watches.stop();
        clients.stop();
    }

    /**
     * The namespace was retired (or replaced): its jobs stop as a stopped node's do, ignoring every answer and timer
     * still due them, and its watches end.
     */
    void retire() {
        ctx.markStopped();
        stop();
    }
}
