package io.rattan.core.node;

import io.rattan.core.client.GetOptions;
import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.ClientRemove;
import io.rattan.core.msg.Messages.Digest;
import io.rattan.core.msg.Messages.DigestEntry;
import io.rattan.core.msg.Messages.DigestWant;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.IterativeGet;
import io.rattan.core.msg.Messages.IterativeGetReply;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.msg.Messages.LeafExchange;
import io.rattan.core.msg.Messages.LeafExchangeReply;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.msg.Messages.RemoveReplica;
import io.rattan.core.msg.Messages.RemoveReplicaReply;
import io.rattan.core.msg.Messages.RemoveReply;
import io.rattan.core.msg.Messages.RemoveRequest;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.Messages.Routed;
import io.rattan.core.msg.Messages.StoreAck;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.msg.Messages.ValueEntry;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.routing.DelayAwarePolicy;
import io.rattan.core.routing.GreedyPolicy;
import io.rattan.core.routing.LeafSet;
import io.rattan.core.routing.NextHopPolicy;
import io.rattan.core.routing.RoutingTable;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Rattan node: an event-driven state machine. It reacts to three things — a message arrived
 * ({@link #receive}), a timer fired, a client asked ({@link #handleClient}) — and acts on the world only through
 * its {@link NodeEnv}. Every method must be called on the node's event loop (the env's scheduler).
 *
 * <p>Puts, removes and joins route by Pastry's rule: inside the leaf-set range the closest leaf, else the
 * routing-table slot for the next digit, else any known node with as long a shared prefix that is closer. Gets route
 * by their {@link RoutingMode}'s {@link NextHopPolicy} among every neighbour that makes progress. Each hop acknowledges a routed request;
 * a hop that does not acknowledge within its RTO is suspected and the request is re-routed at once. The node that
 * serves a request replies straight to the gateway that started it.
 */
public final class Node {

    private static final Logger log = LoggerFactory.getLogger(Node.class);
    private static final int HOPS_MAX = 64;
    private static final int PENDING_MAX = 65_536;
    private static final int JOIN_INFO_CONTACTS_MAX = 160;
    private static final int ANNOUNCE_PINGS_MAX = 64;
    /** Most nodes a gateway's one-hop image keeps: enough for the replicas of a working set of keys. */
    private static final int ONE_HOP_IMAGE_MAX = 1024;
    private static final int PUSH_BYTES_MAX = 256 * 1024;
    private static final int SCAN_PAGE = 512;
    private static final long REPAIR_DELAY_NANOS = 200_000_000L;
    private static final long MILLIS = 1_000_000L;
    /** Candidates a node names in answer to an iterative get. */
    private static final int ITERATIVE_CANDIDATES = 4;
    /** An iterative get's p when the client does not say; the OpenDHT study's value. */
    static final int ITERATIVE_PARALLELISM_DEFAULT = 3;

    private final NodeConfig config;
    private final Contact self;
    private final NodeEnv env;
    private final NodeListener listener;
    private final LeafSet leafSet;
    private final RoutingTable table;
    private final Peers peers;
    /** What {@link Peers#forgetIdle} must keep: the peers routing relies on, measured by maintenance. */
    private final Predicate<Id> isNeighbour = this::isNeighbour;
    private final PendingRequests pending;
    private final NextHopPolicy greedy = new GreedyPolicy();
    private final NextHopPolicy delayAware = new DelayAwarePolicy();
    // When a hedged get started here sends its extra copy.
    private final HedgeThreshold hedgeThreshold = HedgeThreshold.defaults();
    // Made on the first one-hop get: most nodes never serve one, and a simulated world holds many nodes.
    private OneHopRouter oneHopRouter;
    private HedgeThreshold oneHopThreshold;
    // Only measures messages, for the cost a get reports.
    private final MessageCodec codec = new MessageCodec();
    private final List<Cancellable> timers = new ArrayList<>();
    private final String tag;

    private long nextRequestId;
    private boolean started;
    private boolean joined;
    // The request ids of this node's join attempts, until it has joined (one per attempt: a few).
    private final Set<Long> joinIds = new HashSet<>();
    private boolean stopped;
    private List<Address> bootstrap = List.of();
    private int bootstrapIndex;
    private Set<Id> repairedView = new HashSet<>();
    private boolean repairScheduled;
    private Store.Cursor antiEntropyCursor = Store.Cursor.START;
    private int probeCursor;
    /**
     * A node that a table neighbour's pong suggested for the slot it shares with that neighbour, to be measured at
     * the next maintenance tick instead of the next table probe; null when there is none.
     */
    private Contact slotCandidate;
    private int exchangeTurn;

    public Node(NodeConfig config, Contact self, NodeEnv env, NodeListener listener) {
        this.config = config;
        this.self = self;
        this.env = env;
        this.listener = listener;
        this.leafSet = new LeafSet(self, config.leafSetHalf());
        this.peers = new Peers(config.rtoInitialMillis() * MILLIS, config.rtoMinMillis() * MILLIS,
                config.rtoMaxMillis() * MILLIS, 20 * config.leafExchangeIntervalMillis() * MILLIS);
        this.table = new RoutingTable(self.id(), config.candidatesPerSlot(), peers::srttNanos);
        this.pending = new PendingRequests(env.scheduler(), PENDING_MAX);
        this.tag = "node " + self.id().shortHex();
        // A random start keeps a restarted node's new requests apart from late replies to its previous run's.
        this.nextRequestId = 1 + (env.random().nextLong() >>> 2);
    }

    public Contact self() {
        return self;
    }

    public NodeConfig config() {
        return config;
    }

    /** Starts maintenance and joins through the first bootstrap that answers; no bootstrap: a new overlay. */
    public void start(List<Address> bootstrapNodes) {
        if (started) {
            throw new IllegalStateException(tag + " already started");
        }
        started = true;
        bootstrap = List.copyOf(bootstrapNodes);
        // The table probes start at a random entry. Every node's top row holds the same few early nodes, and a wave
        // of nodes that all started at entry 0 probed them at once: at 100,000 simulated nodes their queues grew
        // past every timeout, and puts and gets routed through them failed.
        probeCursor = env.random().nextInt();
        periodic(config.leafExchangeIntervalMillis(), this::exchangeLeafSets);
        periodic(config.antiEntropyIntervalMillis(), this::antiEntropyRound);
        periodic(config.purgeIntervalMillis(), this::purge);
        if (bootstrap.isEmpty()) {
            joined = true;
            log.info("{} started a new overlay at {}", tag, self.address());
        } else {
            attemptJoin();
        }
    }

    private void periodic(long periodMillis, Runnable task) {
        long period = periodMillis * MILLIS;
        // A random phase keeps nodes started together from acting in lock step.
        long first = 1 + (long) (env.random().nextDouble() * period);
        schedulePeriodic(first, period, task);
    }

    private void schedulePeriodic(long delay, long period, Runnable task) {
        int slot = timers.size();
        timers.add(null);
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (stopped) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                // One failed round must not end the maintenance for good.
                log.warn("{} maintenance round failed: {}", tag, e.toString());
            } finally {
                timers.set(slot, env.scheduler().schedule(period, tick[0]));
            }
        };
        timers.set(slot, env.scheduler().schedule(delay, tick[0]));
    }

    public boolean isJoined() {
        return joined;
    }

    public NodeStatus status() {
        List<Contact> leaves = new ArrayList<>(leafSet.counterClockwise());
        for (Contact c : leafSet.clockwise()) {
            if (!leaves.contains(c)) {
                leaves.add(c);
            }
        }
        return new NodeStatus(self, joined, leaves, table.rowFill(), table.size(), env.store().size());
    }

    /** Stops all timers; sends nothing. After this the node ignores every input. */
    public void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        for (Cancellable t : timers) {
            if (t != null) {
                t.cancel();
            }
        }
        for (PendingRequests.Pending p : pending.drain()) {
            if (p.clientFacing()) {
                p.handler().onTimeout();
            }
        }
    }

    // ---------------------------------------------------------------- sending and request matching

    private long now() {
        return env.clock().nanoTime();
    }

    private void send(Address to, long requestId, Message body) {
        listener.messageSent(body.type());
        env.transport().send(to, new Envelope(self, requestId, body));
    }

    /** Sends a request to a peer; the handler sees the reply (an RTT sample is taken) or the timeout. */
    private void request(Contact to, Message body, long timeoutNanos, ReplyHandler handler) {
        long id = nextRequestId++;
        if (!pending.register(id, to.id(), now(), timeoutNanos, false, handler)) {
            log.warn("{} has {} requests outstanding; dropping a {}", tag, pending.size(), body.type());
            handler.onTimeout();
            return;
        }
        send(to.address(), id, body);
    }

    private void onReplyMessage(Envelope e) {
        PendingRequests.Pending p = pending.complete(e);
        if (p == null) {
            // A late reply is still an RTT sample, as in Bamboo; its handler already ran its timeout.
            PendingRequests.Pending late = pending.completeLate(e);
            if (late != null) {
                sampleRtt(late, e);
            }
            return;
        }
        sampleRtt(p, e);
        p.handler().onReply(e);
    }

    private void sampleRtt(PendingRequests.Pending p, Envelope reply) {
        if (p.peer() != null && reply.sender() != null && p.peer().equals(reply.sender().id())) {
            peers.sample(p.peer(), now() - p.sentAtNanos());
        }
    }

    // ---------------------------------------------------------------- membership

    private boolean usable(Contact c) {
        return !peers.isSuspect(c.id());
    }

    /** A node sent us a message: it is alive and is a neighbour candidate. */
    private void heard(Contact c) {
        if (c.id().equals(self.id())) {
            return;
        }
        peers.heardFrom(c.id(), now());
        addContact(c);
    }

    /** A contact another node told us about; recently dead nodes stay out until they speak to us themselves. */
    private void learn(Contact c) {
        // Most contacts of a leaf-set exchange are members already, offered to the table when they joined the leaf
        // set; skipping them spares a lookup in the peers and the table per contact, much of a simulated node's
        // work. A contact we hear from directly is still offered every time, so the table sees measured members.
        if (leafSet.holds(c) || c.id().equals(self.id()) || peers.isRecentlyDead(c.id(), now())) {
            return;
        }
        addContact(c);
    }

    private void addContact(Contact c) {
        table.add(c);
        if (leafSet.add(c)) {
            leafSetChanged();
        }
    }

    /** In the routing table or the leaf set. */
    boolean isNeighbour(Id id) {
        return table.contains(id) || leafSet.contains(id);
    }

    /** Whether this node keeps any state for {@code id} (an RTT estimate, a suspicion). */
    boolean knowsPeer(Id id) {
        return peers.knows(id);
    }

    private void peerTimedOut(Contact c) {
        if (pending.size() >= PENDING_MAX - 1) {
            // Our own request table is full: the failure is ours, not the peer's, so blame nobody.
            return;
        }
        Peers.Peer p = peers.get(c.id());
        p.rtt.backoff();
        p.suspect = true;
        if (p.probing || stopped) {
            return;
        }
        p.probing = true;
        long probeStarted = now();
        request(c, new Ping(), config.rtoMaxMillis() * MILLIS, new ReplyHandler() {
            public void onReply(Envelope reply) {
                Peers.Peer q = peers.get(c.id());
                q.probing = false;
                q.suspect = false;
            }

            public void onTimeout() {
                Peers.Peer q = peers.get(c.id());
                q.probing = false;
                // A lost probe does not outweigh other traffic heard from the peer since it was sent.
                if (q.lastHeardNanos > probeStarted) {
                    q.suspect = false;
                    return;
                }
                declareDead(c);
            }
        });
    }

    private void declareDead(Contact c) {
        log.debug("{} declares {} dead", tag, c);
        forget(c);
    }

    /** Drops a node that died or left from every table, repairs around it and refills the leaf set. */
    private void forget(Contact c) {
        peers.declareDead(c.id(), now());
        table.remove(c.id());
        if (leafSet.remove(c.id())) {
            leafSetChanged();
            // Refill from the farthest member on each side: its leaf set reaches beyond ours.
            refillLeafSet();
        }
    }

    private void refillLeafSet() {
        List<Contact> cw = leafSet.clockwise();
        List<Contact> ccw = leafSet.counterClockwise();
        if (!cw.isEmpty()) {
            exchangeLeafSet(cw.get(cw.size() - 1));
        }
        if (!ccw.isEmpty() && (cw.isEmpty() || !ccw.get(ccw.size() - 1).equals(cw.get(cw.size() - 1)))) {
            exchangeLeafSet(ccw.get(ccw.size() - 1));
        }
    }

    private void exchangeLeafSets() {
        if (!joined) {
            // Until its join completes, nobody should learn of this node and route to it.
            return;
        }
        peers.expireDeadMarks(now());
        peers.forgetIdle(now(), isNeighbour);
        Contact target = nextExchangeTarget();
        if (target != null) {
            exchangeLeafSet(target);
        }
        // Keep measuring the routing-table neighbours, one per period in turn, so that every entry's RTT is at most
        // two table-lengths of periods old: delay-aware gets stop sending traffic to a slow neighbour, and with it the
        // samples that would show its recovery (or, for one not used lately, that it turned slow). A probe's pong
        // may suggest a node for the probed entry's slot; measuring it takes the next period's ping, so the table
        // probes and the slot candidates take turns and maintenance sends no more than before.
        if (slotCandidate != null) {
            measureCandidate(slotCandidate);
            slotCandidate = null;
        } else if (table.size() > 0) {
            ping(table.get(Math.floorMod(probeCursor++, table.size())));
        }
    }

    /**
     * Proximity neighbour selection. A table slot keeps the first nodes offered until a measured, faster one comes
     * along, and new nodes copy their top rows from the nodes on their join path, so without measuring new
     * candidates every node's top rows would hold the same few early nodes for ever: with 20,000 simulated nodes the
     * earliest ones received 110-150 messages a second against a median of 3.4, and at 100,000 their queues grew past
     * every timeout. A candidate measured faster than the slowest of a full slot replaces it; one that is not kept
     * is forgotten.
     */
    private void measureCandidate(Contact c) {
        request(c, new Ping(), peers.rtoNanos(c.id()), new ReplyHandler() {
            public void onReply(Envelope reply) {
                // The RTT sample was taken just before this handler ran; heard() offered the contact unmeasured.
                addContact(c);
                if (!table.contains(c.id()) && !leafSet.contains(c.id())) {
                    peers.forget(c.id());
                }
            }

            public void onTimeout() {
                // Not a neighbour: nothing routes through it, so there is nothing to probe or to re-route.
            }
        });
    }

    /** Takes a pong's suggestion: added when its slot has room, else kept as the slot candidate to measure. */
    private void considerSuggestions(Message pong) {
        if (!(pong instanceof Pong p)) {
            return;
        }
        for (Contact c : p.suggestions()) {
            if (c.id().equals(self.id()) || table.contains(c.id()) || leafSet.contains(c.id())
                    || peers.isRecentlyDead(c.id(), now())) {
                continue;
            }
            learn(c);
            if (!table.contains(c.id()) && !leafSet.contains(c.id())) {
                slotCandidate = c;
            }
        }
    }

    /**
     * What this node's pong suggests to {@code pinger}: a random leaf-set member that shares one more leading digit
     * with this node than the pinger does, so that it falls in the same slot of the pinger's table as this node.
     * Leaf-set members are the nodes nearest this one in the ring, whatever their age, so suggestions spread the
     * pingers' tables over the whole overlay.
     */
    private List<Contact> suggestionFor(Contact pinger) {
        int row = self.id().sharedPrefixLength(pinger.id());
        List<Contact> members = leafSet.members();
        int n = members.size();
        if (n == 0) {
            return List.of();
        }
        int start = env.random().nextInt(n);
        for (int i = 0; i < n; i++) {
            Contact c = members.get((start + i) % n);
            if (self.id().sharedPrefixLength(c.id()) > row && !c.id().equals(pinger.id())) {
                return List.of(c);
            }
        }
        return List.of();
    }

    /**
     * One exchange per period, in turn with the nearest clockwise member, the nearest counter-clockwise member and a
     * random member. Each immediate neighbour is still asked every third period, and asks us as often, so a crashed
     * neighbour is found at most two periods later than with all three every period, at a third of the exchanges
     * and of the contacts they make every node re-check.
     */
    private Contact nextExchangeTarget() {
        List<Contact> all = leafSet.members();
        if (all.isEmpty()) {
            return null;
        }
        int turn = exchangeTurn;
        exchangeTurn = (exchangeTurn + 1) % 3;
        List<Contact> side = turn == 0 ? leafSet.clockwise() : turn == 1 ? leafSet.counterClockwise() : List.of();
        return side.isEmpty() ? all.get(env.random().nextInt(all.size())) : side.get(0);
    }

    private void exchangeLeafSet(Contact c) {
        request(c, new LeafExchange(leafSet.members()), peers.rtoNanos(c.id()), new ReplyHandler() {
            public void onReply(Envelope reply) {
                if (reply.body() instanceof LeafExchangeReply r) {
                    r.leafSet().forEach(Node.this::learn);
                }
            }

            public void onTimeout() {
                peerTimedOut(c);
            }
        });
    }

    // ---------------------------------------------------------------- joining

    private void attemptJoin() {
        if (stopped || joined) {
            return;
        }
        Address to = bootstrap.get(bootstrapIndex++ % bootstrap.size());
        long joinId = nextRequestId++;
        joinIds.add(joinId);
        boolean registered = pending.register(joinId, null, now(), config.requestTimeoutMillis() * MILLIS, false,
                new ReplyHandler() {
            public void onReply(Envelope reply) {
                finishJoin();
            }

            public void onTimeout() {
                log.info("{} got no join answer through {}; trying again", tag, to);
                attemptJoin();
            }
        });
        if (!registered) {
            env.scheduler().schedule(config.requestTimeoutMillis() * MILLIS, this::attemptJoin);
            return;
        }
        // The first hop's ack is not awaited: the join's own timeout covers a dead bootstrap.
        send(to, nextRequestId++, new JoinRequest(self, joinId, 0));
    }

    private void onJoinInfo(Envelope e, JoinInfo info) {
        info.contacts().forEach(this::learn);
        if (info.fromRoot()) {
            onReplyMessage(e);
            // A root's answer that comes after its attempt timed out (the root or the path was slow) still joins:
            // the next attempt would meet the same slow nodes. Only answers to this node's own attempts count.
            if (!stopped && joinIds.contains(e.requestId())) {
                finishJoin();
            }
        }
    }

    private void finishJoin() {
        if (joined) {
            return;
        }
        joined = true;
        joinIds.clear();
        log.info("{} joined: {} leaf-set members, {} routing entries", tag, leafSet.size(), table.size());
        for (Contact c : leafSet.members()) {
            exchangeLeafSet(c);
        }
        // Deepest rows first: the nodes sharing the longest prefix with this one are the ones whose tables have a
        // slot it may fill, and every joiner's top rows hold the same few early nodes, which a crowd of joiners
        // pinging row 0 first would swamp.
        List<Contact> announced = table.all();
        Collections.reverse(announced);
        int pings = 0;
        for (Contact c : announced) {
            if (pings++ >= ANNOUNCE_PINGS_MAX) {
                break;
            }
            if (!leafSet.contains(c.id())) {
                ping(c);
            }
        }
    }

    private void ping(Contact c) {
        request(c, new Ping(), peers.rtoNanos(c.id()), new ReplyHandler() {
            public void onReply(Envelope reply) {
                considerSuggestions(reply.body());
            }

            public void onTimeout() {
                peerTimedOut(c);
            }
        });
    }

    private List<Contact> contactsForJoiner(boolean root) {
        List<Contact> out = new ArrayList<>(leafSet.members());
        out.add(self);
        if (!root || out.size() < JOIN_INFO_CONTACTS_MAX) {
            for (Contact c : table.all()) {
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

    // ---------------------------------------------------------------- inbound

    /** A frame arrived from a peer. */
    public void receive(Envelope e) {
        if (stopped || e.sender() == null) {
            return;
        }
        Contact from = e.sender();
        Message m = e.body();
        // A joiner is not yet a member: nobody should route to it before its join completes.
        // A leaving node is not to be taken back in by its own goodbye.
        if (!(m instanceof JoinRequest j && j.joiner().id().equals(from.id())) && !(m instanceof Leave)) {
            heard(from);
        }
        try {
            dispatch(e, from, m);
        } catch (StoreException ex) {
            log.warn("{} store failure handling {}: {}", tag, m.type(), ex.toString());
        }
    }

    private void dispatch(Envelope e, Contact from, Message m) {
        switch (m.type()) {
            case PING -> send(from.address(), e.requestId(), new Pong(suggestionFor(from)));
            case PONG, HOP_ACK, STORE_ACK, LEAF_EXCHANGE_REPLY, REMOVE_REPLICA_REPLY, DIGEST_WANT, PUT_REPLY,
                 GET_REPLY, REMOVE_REPLY, ITERATIVE_GET_REPLY -> onReplyMessage(e);
            case ITERATIVE_GET -> {
                // Like a routed get, a node that has not joined stays silent and the gateway asks another.
                if (joined) {
                    send(from.address(), e.requestId(), answerIterative((IterativeGet) m));
                }
            }
            case JOIN_INFO -> onJoinInfo(e, (JoinInfo) m);
            case JOIN_REQUEST, PUT_REQUEST, GET_REQUEST, REMOVE_REQUEST -> {
                // A node that has not (re)joined stays silent, so the previous hop times out and routes around it.
                if (joined) {
                    send(from.address(), e.requestId(), new HopAck());
                    if (m instanceof GetRequest g) {
                        listener.getReceived(g.routing());
                    }
                    onRouted((Routed) m);
                }
            }
            case LEAF_EXCHANGE -> {
                ((LeafExchange) m).leafSet().forEach(this::learn);
                send(from.address(), e.requestId(), new LeafExchangeReply(leafSet.members()));
            }
            case LEAVE -> forget(from);
            case STORE_REPLICAS -> send(from.address(), e.requestId(), new StoreAck(acceptReplicas((StoreReplicas) m)));
            case REMOVE_REPLICA -> {
                RemoveReplica r = (RemoveReplica) m;
                send(from.address(), e.requestId(),
                        new RemoveReplicaReply(applyRemove(r.key(), r.valueHash(), r.secret(), r.ttlSeconds())));
            }
            case DIGEST -> answerDigest(e, from, (Digest) m);
            default -> log.debug("{} ignores a {} on the peer port from {}", tag, m.type(), from);
        }
    }

    // ---------------------------------------------------------------- routing

    /** Pastry's next hop for {@code key}, skipping {@code tried} and suspects; {@code self} when none is better. */
    private Contact nextHop(Id key, Set<Id> tried) {
        return nextHop(key, c -> !tried.contains(c.id()) && usable(c));
    }

    private Contact nextHop(Id key, Predicate<Contact> ok) {
        if (leafSet.covers(key)) {
            return leafSet.closest(key, 1, ok).get(0);
        }
        Contact viaTable = table.best(table.slotFor(key), ok);
        if (viaTable != null) {
            return viaTable;
        }
        int shared = self.id().sharedPrefixLength(key);
        Contact best = self;
        for (Contact c : leafSet.members()) {
            best = closerWithPrefix(key, shared, best, c, ok);
        }
        for (Contact c : table.all()) {
            best = closerWithPrefix(key, shared, best, c, ok);
        }
        return best;
    }

    /**
     * A get's next hop: the routing mode's policy chooses among every usable neighbour strictly closer to the key
     * (leaf set and routing table); {@code self} when none is.
     */
    private Contact nextHopForGet(GetRequest g, Set<Id> tried) {
        Id key = g.key();
        List<Contact> candidates = usableNeighbours(c -> !tried.contains(c.id()) && c.id().isCloserTo(key, self.id()));
        if (candidates.isEmpty()) {
            return self;
        }
        NextHopPolicy policy = g.routing() == RoutingMode.GREEDY ? greedy : delayAware;
        return policy.choose(key, self.id(), candidates, peers);
    }

    /** Usable neighbours that pass {@code ok}: leaf-set members first, then table entries not in the leaf set. */
    private List<Contact> usableNeighbours(Predicate<Contact> ok) {
        List<Contact> found = new ArrayList<>();
        for (Contact c : leafSet.members()) {
            if (usable(c) && ok.test(c)) {
                found.add(c);
            }
        }
        table.forEach(c -> {
            if (!leafSet.contains(c.id()) && usable(c) && ok.test(c)) {
                found.add(c);
            }
        });
        return found;
    }

    private static Contact closerWithPrefix(Id key, int shared, Contact best, Contact c, Predicate<Contact> ok) {
        if (ok.test(c) && c.id().sharedPrefixLength(key) >= shared && c.id().isCloserTo(key, best.id())) {
            return c;
        }
        return best;
    }

    /** True when this node is one of the k replicas of {@code key} in its own view. */
    private boolean isReplica(Id key) {
        return leafSet.covers(key) && leafSet.closest(key, config.replicas(), this::usable).contains(self);
    }

    /**
     * A get is answered by the first replica on the path, unless that replica holds nothing for the key and is not
     * the root: a replica that joined moments ago may not have been repaired yet, so the root is asked instead.
     */
    private boolean answersGet(Id key) {
        if (!isReplica(key)) {
            return false;
        }
        if (leafSet.closest(key, 1, this::usable).get(0).equals(self)) {
            return true;
        }
        for (StoredRecord r : env.store().scan(Store.Cursor.atKey(key), 1)) {
            return r.key().equals(key);
        }
        return false;
    }

    private List<Contact> replicaSet(Id key) {
        return leafSet.closest(key, config.replicas(), this::usable);
    }

    private void onRouted(Routed m) {
        if (m.hops() > HOPS_MAX) {
            log.warn("{} drops a {} for {} after {} hops", tag, ((Message) m).type(), m.key().shortHex(), m.hops());
            return;
        }
        if (m instanceof GetRequest g && answersGet(g.key())) {
            deliver(m);
            return;
        }
        Set<Id> tried = new HashSet<>();
        if (m instanceof JoinRequest j) {
            // A restarting node may still sit in our tables under its own id: never route its join to itself.
            tried.add(j.joiner().id());
        }
        route(m, tried);
    }

    private void route(Routed m, Set<Id> tried) {
        Contact next = m instanceof GetRequest g ? nextHopForGet(g, tried) : nextHop(m.key(), tried);
        if (m instanceof GetRequest g && !next.equals(self)) {
            listener.getForwarded(g.routing(), next, peers.srttNanos(next.id()));
        }
        if (next.id().equals(self.id())) {
            // A join is served by the closest node that answers, as Pastry routes around a failed root: its leaf
            // set names the unreachable root too, so the joiner still lands in the right place. Dropping it instead
            // kept a node out of the overlay for as long as its root stayed slow.
            if (closerNodeExists(m) && !(m instanceof JoinRequest)) {
                // Every node closer to the key was tried or is suspected: serving it here would answer for nodes
                // that may hold the data (or store a put where no get will look). Fail, and the client retries.
                replyToOrigin(m, new ErrorReply(Status.UNAVAILABLE, "no reachable node closer to the key"));
                return;
            }
            deliver(m);
            return;
        }
        if (m instanceof JoinRequest j && tried.size() <= 1) {
            // A node on the join path gives the joiner its contacts; the root gives its leaf set in deliver().
            send(j.joiner().address(), 0, new JoinInfo(contactsForJoiner(false), false));
        }
        forward(m, next, tried);
    }

    /** Whether, health aside, Pastry's rule would send {@code m} on from here (a joiner never counts as its root). */
    private boolean closerNodeExists(Routed m) {
        Id joiner = m instanceof JoinRequest j ? j.joiner().id() : null;
        return !nextHop(m.key(), c -> !c.id().equals(joiner)).equals(self);
    }

    private void forward(Routed m, Contact next, Set<Id> tried) {
        Routed out = m.nextHop();
        Cost sent = Cost.ZERO;
        if (out instanceof GetRequest g) {
            // A get carries its cost: this forward and the ack it will get back, counted before sending.
            sent = size(self, g);
            out = g.spent(sent.plus(size(next, new HopAck())));
        }
        Cost lost = sent;
        request(next, (Message) out, peers.rtoNanos(next.id()), new ReplyHandler() {
            public void onReply(Envelope reply) {
            }

            public void onTimeout() {
                if (stopped) {
                    return;
                }
                peerTimedOut(next);
                tried.add(next.id());
                route(m instanceof GetRequest g ? g.spent(lost) : m, tried);
            }
        });
    }

    /** One message from {@code sender} as it goes on the wire. */
    private Cost size(Contact sender, Message body) {
        return Cost.message(codec.encodedSize(new Envelope(sender, 0, body)));
    }

    private void deliver(Routed m) {
        switch (((Message) m).type()) {
            case GET_REQUEST -> serveGet((GetRequest) m);
            case PUT_REQUEST -> coordinatePut((PutRequest) m);
            case REMOVE_REQUEST -> coordinateRemove((RemoveRequest) m);
            case JOIN_REQUEST -> {
                JoinRequest j = (JoinRequest) m;
                if (!j.joiner().id().equals(self.id())) {
                    send(j.joiner().address(), j.originRequestId(), new JoinInfo(contactsForJoiner(true), true));
                }
            }
            default -> throw new IllegalStateException("not a routed message: " + m);
        }
    }

    /** Sends the final answer of a routed request to the gateway that started it (possibly this node). */
    private void replyToOrigin(Routed m, Message reply) {
        if (m.origin().id().equals(self.id())) {
            onReplyMessage(new Envelope(self, m.originRequestId(), reply));
        } else {
            send(m.origin().address(), m.originRequestId(), reply);
        }
    }

    // ---------------------------------------------------------------- get

    private void serveGet(GetRequest g) {
        GetReply page = readPage(g.key(), g.maxValues(), g.placemark(), g.hops());
        GetReply reply = new GetReply(page.status(), page.values(), page.placemark(), page.hops(), "", g.cost(),
                g.wantHolders() ? replicaSet(g.key()) : List.of());
        if (!g.origin().id().equals(self.id())) {
            // The reply's size does not depend on the cost it carries (fixed-width fields).
            reply = reply.withCost(g.cost().plus(size(self, reply)));
        }
        replyToOrigin(g, reply);
    }

    // ---------------------------------------------------------------- iterative get

    /** A node asked by an iterative gateway: the values if it would answer a routed get, else closer nodes. */
    private IterativeGetReply answerIterative(IterativeGet q) {
        if (answersGet(q.key())) {
            GetReply page = readPage(q.key(), q.maxValues(), q.placemark(), 0);
            return new IterativeGetReply(Status.OK, true, page.values(), page.placemark(),
                    q.wantHolders() ? replicaSet(q.key()) : List.of());
        }
        return new IterativeGetReply(Status.OK, false, List.of(), Bytes.EMPTY,
                closerNeighbours(q.key(), ITERATIVE_CANDIDATES));
    }

    /** Usable neighbours strictly closer to {@code key} than this node, closest first, at most {@code max}. */
    private List<Contact> closerNeighbours(Id key, int max) {
        List<Contact> closer = usableNeighbours(c -> c.id().isCloserTo(key, self.id()));
        closer.sort(Comparator.comparing(c -> c.id().distanceTo(key)));
        return closer.size() > max ? List.copyOf(closer.subList(0, max)) : closer;
    }

    /**
     * Runs an iterative get as gateway: asks the closest known candidates itself, {@code parallelism} at a time,
     * each with the per-peer timeout; the first node that answers with values completes client request {@code id}.
     */
    private void startIterative(ClientGet g, long id) {
        int p = g.parallelism() == 0 ? ITERATIVE_PARALLELISM_DEFAULT : g.parallelism();
        IterativeLookup lookup = new IterativeLookup(g.key(), self.id(), p);
        lookup.offer(closerNeighbours(g.key(), ITERATIVE_CANDIDATES), 1);
        pumpIterative(lookup, new IterativeGet(g.key(), g.maxValues(), g.placemark(), g.wantHolders()), id);
    }

    private void pumpIterative(IterativeLookup lookup, IterativeGet q, long id) {
        Contact c;
        while ((c = lookup.next()) != null) {
            Contact asked = c;
            lookup.spent(size(self, q));
            request(asked, q, peers.rtoNanos(asked.id()), new ReplyHandler() {
                public void onReply(Envelope e) {
                    lookup.answered(asked);
                    lookup.spent(size(asked, e.body()));
                    if (lookup.finished()) {
                        return;
                    }
                    IterativeGetReply r = (IterativeGetReply) e.body();
                    if (r.answered()) {
                        lookup.finish();
                        onReplyMessage(new Envelope(self, id, new GetReply(r.status(), r.values(), r.placemark(),
                                lookup.depth(asked), "", lookup.cost(), q.wantHolders() ? r.contacts() : List.of())));
                        return;
                    }
                    lookup.offer(r.contacts(), lookup.depth(asked) + 1);
                    pumpIterative(lookup, q, id);
                }

                public void onTimeout() {
                    if (stopped || lookup.finished()) {
                        return;
                    }
                    peerTimedOut(asked);
                    lookup.failed(asked);
                    pumpIterative(lookup, q, id);
                }
            });
        }
        if (!lookup.finished() && lookup.exhausted()) {
            lookup.finish();
            onReplyMessage(new Envelope(self, id, new ErrorReply(Status.UNAVAILABLE,
                    "iterative get: no candidate near the key answered")));
        }
    }

    private GetReply readPage(Id key, int maxValues, Bytes placemark, int hops) {
        int max = Math.min(maxValues <= 0 ? config.pageValuesMax() : maxValues, config.pageValuesMax());
        List<ValueEntry> values = new ArrayList<>();
        long nowMillis = env.clock().epochMillis();
        int bytes = 0;
        Store.Cursor cursor = new Store.Cursor(key, placemark);
        Bytes last = Bytes.EMPTY;
        boolean more = false;
        scan:
        while (true) {
            List<StoredRecord> page = env.store().scan(cursor, Math.min(SCAN_PAGE, max + 1));
            if (page.isEmpty()) {
                break;
            }
            for (StoredRecord r : page) {
                if (!r.key().equals(key)) {
                    break scan;
                }
                cursor = new Store.Cursor(r.key(), r.valueHash());
                if (r.tombstone()) {
                    continue;
                }
                if (values.size() >= max || (bytes + r.value().length() > config.pageBytesMax() && !values.isEmpty())) {
                    more = true;
                    break scan;
                }
                values.add(new ValueEntry(r.value(), Math.max(0, r.expiresAtMillis() - nowMillis)));
                bytes += r.value().length();
                last = r.valueHash();
            }
        }
        return new GetReply(Status.OK, values, more ? last : Bytes.EMPTY, hops, "");
    }

    // ---------------------------------------------------------------- put

    private void coordinatePut(PutRequest p) {
        long expiresAt = env.clock().epochMillis() + p.ttlSeconds() * 1000L;
        StoredRecord record = StoredRecord.value(p.key(), p.value(), expiresAt, p.secretHash());
        List<Contact> replicas = replicaSet(p.key());
        int needed = Math.min(config.writeQuorum(), replicas.size());
        int[] acks = {0};
        int[] outstanding = {0};
        boolean[] replied = {false};
        Runnable check = () -> {
            if (replied[0]) {
                return;
            }
            if (acks[0] >= needed) {
                replied[0] = true;
                replyToOrigin(p, new PutReply(Status.OK, acks[0], ""));
            } else if (outstanding[0] == 0) {
                replied[0] = true;
                replyToOrigin(p, new PutReply(Status.UNAVAILABLE, acks[0],
                        "only " + acks[0] + " of " + needed + " replicas acknowledged"));
            }
        };
        if (replicas.contains(self)) {
            if (!storeLocally(record)) {
                replyToOrigin(p, new PutReply(Status.FORBIDDEN, 0, "this value was removed by its owner; a put of "
                        + "it with the same secret is refused until the removal expires"));
                return;
            }
            acks[0]++;
        }
        ReplicaRecord wire = toWire(record);
        for (Contact r : replicas) {
            if (r.equals(self)) {
                continue;
            }
            outstanding[0]++;
            request(r, new StoreReplicas(List.of(wire)), peers.rtoNanos(r.id()), new ReplyHandler() {
                public void onReply(Envelope reply) {
                    outstanding[0]--;
                    if (reply.body() instanceof StoreAck a && a.accepted() > 0) {
                        acks[0]++;
                    }
                    check.run();
                }

                public void onTimeout() {
                    outstanding[0]--;
                    peerTimedOut(r);
                    check.run();
                }
            });
        }
        check.run();
    }

    private ReplicaRecord toWire(StoredRecord r) {
        long remaining = Math.max(0, r.expiresAtMillis() - env.clock().epochMillis());
        return new ReplicaRecord(r.key(), r.valueHash(), r.value(), remaining, r.secretHash(), r.tombstone());
    }

    /**
     * Writes a record unless a rule forbids it: a value never overrides a tombstone of the same secret (the value
     * was removed); a tombstone never removes a value protected by a different secret, and a tombstone without a
     * secret hash (which no remove creates) is refused; and a value's secret hash is the one it was first stored
     * with, so re-putting the same bytes with another secret cannot take over the right to remove it.
     */
    private boolean storeLocally(StoredRecord rec) {
        if (rec.tombstone() && rec.secretHash().isEmpty()) {
            return false;
        }
        Optional<StoredRecord> existing = env.store().read(rec.key(), rec.valueHash());
        StoredRecord toWrite = rec;
        if (existing.isPresent()) {
            StoredRecord old = existing.get();
            if (rec.tombstone() && !old.secretHash().equals(rec.secretHash())) {
                return false;
            }
            if (!rec.tombstone() && old.tombstone() && old.secretHash().equals(rec.secretHash())) {
                return false;
            }
            if (!rec.tombstone() && !old.tombstone() && !old.secretHash().equals(rec.secretHash())) {
                toWrite = new StoredRecord(rec.key(), rec.valueHash(), rec.value(),
                        Math.max(rec.expiresAtMillis(), old.expiresAtMillis()), old.secretHash(), false);
            }
        }
        env.store().write(toWrite);
        return true;
    }

    private int acceptReplicas(StoreReplicas m) {
        long nowMillis = env.clock().epochMillis();
        long ttlMaxMillis = config.ttlSecondsMax() * 1000L;
        int accepted = 0;
        for (ReplicaRecord r : m.records()) {
            if (r.remainingMillis() <= 0) {
                continue;
            }
            if (!r.tombstone() && (r.value().length() > config.valueBytesMax()
                    || !r.value().sha256().equals(r.valueHash()))) {
                log.debug("{} rejects a replica of {} whose hash or size is wrong", tag, r.key().shortHex());
                continue;
            }
            if (r.valueHash().length() != StoredRecord.HASH_BYTES
                    || !(r.secretHash().isEmpty() || r.secretHash().length() == StoredRecord.HASH_BYTES)
                    || (r.tombstone() && !r.value().isEmpty())) {
                continue;
            }
            long expiresAt = nowMillis + Math.min(r.remainingMillis(), ttlMaxMillis);
            StoredRecord rec = new StoredRecord(r.key(), r.valueHash(), r.value(), expiresAt, r.secretHash(),
                    r.tombstone());
            if (storeLocally(rec)) {
                accepted++;
            }
        }
        return accepted;
    }

    // ---------------------------------------------------------------- remove

    private void coordinateRemove(RemoveRequest r) {
        List<Contact> replicas = replicaSet(r.key());
        int[] outstanding = {replicas.size()};
        Status[] results = new Status[replicas.size()];
        Runnable finish = () -> replyToOrigin(r, new RemoveReply(combine(results), ""));
        for (int i = 0; i < replicas.size(); i++) {
            Contact c = replicas.get(i);
            int slot = i;
            if (c.equals(self)) {
                results[slot] = applyRemove(r.key(), r.valueHash(), r.secret(), r.ttlSeconds());
                if (--outstanding[0] == 0) {
                    finish.run();
                }
                continue;
            }
            request(c, new RemoveReplica(r.key(), r.valueHash(), r.secret(), r.ttlSeconds()),
                    peers.rtoNanos(c.id()), new ReplyHandler() {
                        public void onReply(Envelope reply) {
                            results[slot] = reply.body() instanceof RemoveReplicaReply rr ? rr.status()
                                    : Status.INTERNAL;
                            if (--outstanding[0] == 0) {
                                finish.run();
                            }
                        }

                        public void onTimeout() {
                            results[slot] = Status.TIMEOUT;
                            peerTimedOut(c);
                            if (--outstanding[0] == 0) {
                                finish.run();
                            }
                        }
                    });
        }
    }

    /** OK if any replica removed it; else FORBIDDEN if any refused; else NOT_FOUND if any answered; else UNAVAILABLE. */
    private static Status combine(Status[] results) {
        boolean forbidden = false;
        boolean answered = false;
        for (Status s : results) {
            if (s == Status.OK) {
                return Status.OK;
            }
            forbidden |= s == Status.FORBIDDEN;
            answered |= s == Status.NOT_FOUND || s == Status.FORBIDDEN;
        }
        return forbidden ? Status.FORBIDDEN : answered ? Status.NOT_FOUND : Status.UNAVAILABLE;
    }

    /**
     * Removes a value held here if SHA-256(secret) matches its secret hash, leaving a tombstone that outlives the
     * value; the tombstone then spreads to the other replicas by anti-entropy, so a copy that arrives later from a
     * replica that missed the remove is dropped.
     */
    private Status applyRemove(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) {
        Bytes secretHash = secret.sha256();
        long nowMillis = env.clock().epochMillis();
        long tombstoneUntil = nowMillis + Math.min(Math.max(ttlSeconds, 1), config.ttlSecondsMax()) * 1000L;
        Optional<StoredRecord> existing = env.store().read(key, valueHash);
        if (existing.isPresent()) {
            StoredRecord old = existing.get();
            if (!old.secretHash().equals(secretHash)) {
                return old.tombstone() ? Status.NOT_FOUND : Status.FORBIDDEN;
            }
            if (old.tombstone()) {
                return Status.OK;
            }
            env.store().write(StoredRecord.tombstone(key, valueHash,
                    Math.max(tombstoneUntil, old.expiresAtMillis()), secretHash));
            return Status.OK;
        }
        // Not held here: nothing proves this secret, so nothing is written. The tombstone of a remove that some
        // replica authorised reaches this one by anti-entropy.
        return Status.NOT_FOUND;
    }

    // ---------------------------------------------------------------- replica repair and anti-entropy

    private void leafSetChanged() {
        if (repairScheduled || stopped) {
            return;
        }
        repairScheduled = true;
        // Debounced: a join changes the leaf set many times in a burst.
        env.scheduler().schedule(REPAIR_DELAY_NANOS, this::repair);
    }

    /**
     * Pushes every record whose replica set gained members since the last repair to those members. Of the old
     * replicas still present, only the one closest to the key pushes, so a change costs one copy per new replica;
     * anti-entropy catches what a disagreement of views misses.
     */
    private void repair() {
        repairScheduled = false;
        if (stopped) {
            return;
        }
        Set<Id> oldView = repairedView;
        List<Contact> members = leafSet.members();
        Set<Id> newView = new HashSet<>();
        for (Contact c : members) {
            newView.add(c.id());
        }
        if (newView.equals(oldView)) {
            return;
        }
        repairedView = newView;
        List<Id> oldIds = new ArrayList<>(oldView);
        oldIds.add(self.id());
        Pushes pushes = new Pushes();
        forEachRecord(r -> {
            List<Contact> now = replicaSet(r.key());
            List<Id> before = closestIds(r.key(), oldIds, config.replicas());
            Id pusher = null;
            for (Id id : before) {
                if (id.equals(self.id()) || newView.contains(id)) {
                    pusher = id;
                    break;
                }
            }
            if (pusher != null && !pusher.equals(self.id())) {
                return;
            }
            for (Contact c : now) {
                if (!c.equals(self) && !before.contains(c.id())) {
                    pushes.add(c, r);
                }
            }
        });
        pushes.flush();
    }

    /** Runs {@code action} on every live record of the local store, in key order, a page at a time. */
    private void forEachRecord(Consumer<StoredRecord> action) {
        Store.Cursor cursor = Store.Cursor.START;
        while (true) {
            List<StoredRecord> page = env.store().scan(cursor, SCAN_PAGE);
            if (page.isEmpty()) {
                return;
            }
            for (StoredRecord r : page) {
                cursor = new Store.Cursor(r.key(), r.valueHash());
                action.accept(r);
            }
        }
    }

    private static List<Id> closestIds(Id key, List<Id> ids, int n) {
        List<Id> sorted = new ArrayList<>(ids);
        sorted.sort((a, b) -> a.equals(b) ? 0 : a.isCloserTo(key, b) ? -1 : 1);
        return sorted.size() > n ? sorted.subList(0, n) : sorted;
    }

    /** Batches records per destination into bounded {@link StoreReplicas} messages. */
    private final class Pushes {
        private final Map<Contact, List<ReplicaRecord>> batches = new LinkedHashMap<>();
        private final Map<Contact, Integer> batchBytes = new LinkedHashMap<>();
        private Runnable onAllAcked = () -> { };
        private int outstanding;
        private boolean flushed;

        void add(Contact to, StoredRecord r) {
            List<ReplicaRecord> batch = batches.computeIfAbsent(to, k -> new ArrayList<>());
            batch.add(toWire(r));
            int bytes = batchBytes.merge(to, r.value().length() + 128, Integer::sum);
            if (batch.size() >= config.digestEntriesMax() || bytes >= PUSH_BYTES_MAX) {
                send(to, List.copyOf(batch));
                batch.clear();
                batchBytes.put(to, 0);
            }
        }

        private void send(Contact to, List<ReplicaRecord> records) {
            outstanding++;
            request(to, new StoreReplicas(records), config.rtoMaxMillis() * MILLIS, new ReplyHandler() {
                public void onReply(Envelope reply) {
                    done();
                }

                public void onTimeout() {
                    done();
                }
            });
        }

        private void done() {
            outstanding--;
            if (flushed && outstanding == 0) {
                onAllAcked.run();
            }
        }

        void flush() {
            for (Map.Entry<Contact, List<ReplicaRecord>> e : batches.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    send(e.getKey(), List.copyOf(e.getValue()));
                }
            }
            batches.clear();
            flushed = true;
            if (outstanding == 0) {
                onAllAcked.run();
            }
        }
    }

    /**
     * One anti-entropy round: tell a random leaf-set neighbour which records (values and tombstones) it should hold
     * as we see it, from a rotating cursor; it answers with the ones it lacks, which we push.
     */
    private void antiEntropyRound() {
        if (!joined) {
            return;
        }
        List<Contact> members = leafSet.members();
        if (members.isEmpty()) {
            return;
        }
        Contact peer = members.get(env.random().nextInt(members.size()));
        List<DigestEntry> entries = new ArrayList<>();
        Store.Cursor cursor = antiEntropyCursor;
        int scanned = 0;
        int scanBudget = 4 * config.digestEntriesMax();
        boolean wrapped = false;
        outer:
        while (scanned < scanBudget) {
            List<StoredRecord> page = env.store().scan(cursor, SCAN_PAGE);
            if (page.isEmpty()) {
                if (wrapped || cursor.equals(Store.Cursor.START)) {
                    break;
                }
                wrapped = true;
                cursor = Store.Cursor.START;
                continue;
            }
            for (StoredRecord r : page) {
                cursor = new Store.Cursor(r.key(), r.valueHash());
                scanned++;
                if (replicaSet(r.key()).contains(peer)) {
                    entries.add(new DigestEntry(r.key(), r.valueHash(), r.tombstone()));
                    if (entries.size() >= config.digestEntriesMax()) {
                        break outer;
                    }
                }
            }
        }
        antiEntropyCursor = cursor;
        if (entries.isEmpty()) {
            return;
        }
        request(peer, new Digest(entries), config.rtoMaxMillis() * MILLIS, new ReplyHandler() {
            public void onReply(Envelope reply) {
                if (reply.body() instanceof DigestWant w) {
                    Pushes pushes = new Pushes();
                    for (DigestEntry d : w.entries()) {
                        env.store().read(d.key(), d.valueHash()).ifPresent(r -> pushes.add(peer, r));
                    }
                    pushes.flush();
                }
            }

            public void onTimeout() {
                peerTimedOut(peer);
            }
        });
    }

    /**
     * Answers a digest with the entries this node lacks, and sends back its tombstone for every entry the sender still
     * holds as a live value. Digests only flow toward the nodes a sender sees as replicas, so without the second part
     * a node holding a removed value it was pushed while it was no replica (by a replica that missed the remove and
     * came back) would learn of the remove only if a tombstone holder happened to see it as a replica.
     */
    private void answerDigest(Envelope e, Contact from, Digest d) {
        List<DigestEntry> want = new ArrayList<>();
        Pushes tombstones = null;
        for (DigestEntry entry : d.entries()) {
            Optional<StoredRecord> have = env.store().read(entry.key(), entry.valueHash());
            boolean lacks = entry.tombstone() ? have.isEmpty() || !have.get().tombstone() : have.isEmpty();
            if (lacks) {
                want.add(entry);
            } else if (!entry.tombstone() && have.get().tombstone()) {
                if (tombstones == null) {
                    tombstones = new Pushes();
                }
                tombstones.add(from, have.get());
            }
        }
        send(from.address(), e.requestId(), new DigestWant(want));
        if (tombstones != null) {
            tombstones.flush();
        }
    }

    private void purge() {
        int n = env.store().purgeExpired(10_000);
        if (n > 0) {
            log.debug("{} purged {} expired records", tag, n);
        }
    }

    // ---------------------------------------------------------------- leaving

    /** Graceful leave: hands this node's values to the neighbours that become their replicas, then runs {@code done}. */
    public void leave(Runnable done) {
        if (stopped || !joined) {
            stop();
            done.run();
            return;
        }
        Pushes pushes = new Pushes();
        pushes.onAllAcked = () -> {
            // The records are handed off; the neighbours now drop this node and repair around it at once (a new
            // replica may lie beyond this node's leaf set, where only they can see it).
            for (Contact c : leafSet.members()) {
                send(c.address(), 0, new Leave());
            }
            stop();
            done.run();
        };
        forEachRecord(r -> {
            for (Contact c : leafSet.closest(r.key(), config.replicas() + 1, this::usable)) {
                if (!c.equals(self)) {
                    pushes.add(c, r);
                }
            }
        });
        log.info("{} leaving: handing its records to its neighbours", tag);
        pushes.flush();
    }

    // ---------------------------------------------------------------- gateway

    /**
     * Serves a client request ({@code ClientPut}, {@code ClientGet} or {@code ClientRemove}) with this node as
     * gateway: the one entry for every client request, binary or HTTP. {@code options} say how a get runs (they
     * override the routing and parallelism the {@code ClientGet} carries; puts and removes ignore them): started
     * here and at {@code gateways − 1} other nodes this node knows (chosen at random), each of which routes it on as
     * if it had started there; with {@code hedge}, one more copy goes to one more node if no good answer came within
     * this node's {@link HedgeThreshold}; with {@code oneHop}, the copies go instead straight to the nodes this
     * gateway's {@link OneHopRouter} believes hold the key. The first good answer is the reply. {@code reply} is
     * called exactly once, on the event loop, with a {@code PutReply}, {@code GetReply}, {@code RemoveReply} or
     * {@code ErrorReply}; invalid input is answered at once, before anything is routed.
     */
    public void handleClient(Message request, GetOptions options, Consumer<Message> reply) {
        ErrorReply refused = refusal(request, options);
        if (refused != null) {
            reply.accept(refused);
            return;
        }
        if (!(request instanceof ClientGet g)) {
            start(request, null, reply);
            return;
        }
        ClientGet get = new ClientGet(g.key(), options.routing(), g.maxValues(), g.placemark(), options.parallelism(),
                g.wantHolders());
        if (options.oneHop()) {
            startOneHop(get, options, reply);
            return;
        }
        if (options.maxCopies() == 1) {
            start(get, null, reply);
            return;
        }
        List<Contact> others = usableNeighbours(c -> true);
        GetRace.start(env.scheduler(), env.clock(), options, hedgeThreshold, Node::isGoodGet,
                (copy, answer) -> {
                    Contact via = copy == 0 || others.isEmpty() ? null
                            : others.remove(env.random().nextInt(others.size()));
                    start(get, via, answer);
                },
                result -> reply.accept(result.reply()));
    }

    private void startOneHop(ClientGet request, GetOptions options, Consumer<Message> reply) {
        if (oneHopRouter == null) {
            oneHopRouter = new OneHopRouter(ONE_HOP_IMAGE_MAX);
            oneHopThreshold = HedgeThreshold.defaults();
        }
        OneHopRouter router = oneHopRouter;
        // Every answer must name the holders: that is how the image learns.
        ClientGet asked = new ClientGet(request.key(), request.routing(), request.maxValues(), request.placemark(),
                request.parallelism(), true);
        // Replicas it has not asked yet may be neighbours whose RTT it knows; ones it suspects are skipped (a copy to
        // one that died would wait out a timeout before being routed from here). This node comes last.
        List<Contact> targets = new ArrayList<>(router.targets(request.key(), config.replicas(), self,
                peers::srttNanos));
        targets.removeIf(c -> !c.equals(self) && (!usable(c) || peers.isRecentlyDead(c.id(), now())));
        // Listed only when a copy goes beyond the known targets (copies start in order): most one-hop gets send one.
        List<Contact> others = new ArrayList<>();
        // One-hop gets are much faster than routed ones: their own threshold keeps them from pulling down the one
        // routed hedged gets use.
        // The hedges follow the last of the copies sent at once.
        long[] hedgeWaits = options.hedge() ? router.hedgeWaitsNanos(
                targets.subList(Math.min(options.gateways(), targets.size()) - 1, targets.size()),
                oneHopThreshold.thresholdNanos(), peers::srttNanos) : new long[0];
        GetRace.start(env.scheduler(), env.clock(), options, oneHopThreshold, hedgeWaits, Node::isGoodGet,
                (copy, answer) -> {
                    // Copies beyond the known targets start at random neighbours, as a routed race's do, rather
                    // than all at this node.
                    if (copy == targets.size()) {
                        others.addAll(usableNeighbours(c -> !targets.contains(c)));
                    }
                    Contact target = copy < targets.size() ? targets.get(copy)
                            : others.isEmpty() ? self : others.remove(env.random().nextInt(others.size()));
                    Contact via = target.equals(self) ? null : target;
                    Set<Id> tried = new HashSet<>();
                    long sent = now();
                    start(asked, via, m -> {
                        if (via != null && tried.contains(via.id())) {
                            // The target did not answer its hop; the get was routed from here instead.
                            router.forget(target);
                        } else {
                            int directHops = via == null ? 0 : 1;
                            router.answered(target, m, now() - sent,
                                    m instanceof GetReply g && g.hops() == directHops);
                        }
                        answer.accept(m);
                    }, tried);
                },
                result -> reply.accept(result.reply()));
    }

    private static boolean isGoodGet(Message m) {
        return m instanceof GetReply g && g.status() == Status.OK;
    }

    /** Why this node cannot serve {@code request} with {@code options} now, or null. */
    private ErrorReply refusal(Message request, GetOptions options) {
        if (stopped) {
            return new ErrorReply(Status.UNAVAILABLE, "node is stopping");
        }
        if (!joined) {
            return new ErrorReply(Status.UNAVAILABLE, "node has not joined the overlay yet");
        }
        String invalid = ClientRequestValidator.check(request, options, config);
        if (invalid == null) {
            return null;
        }
        return new ErrorReply(invalid.startsWith(ClientRequestValidator.TOO_LARGE) ? Status.TOO_LARGE
                : Status.BAD_REQUEST, invalid);
    }

    /**
     * Starts a valid client request here ({@code via} null) or, for a get, at node {@code via}, which routes it on;
     * either way this node is its origin and {@code reply} gets the answer or the timeout.
     */
    private void start(Message request, Contact via, Consumer<Message> reply) {
        start(request, via, reply, new HashSet<>());
    }

    /**
     * As {@link #start(Message, Contact, Consumer)}, routing with {@code tried} as the first hop's tried set: it
     * holds {@code via}'s id afterwards if the hop to {@code via} timed out and the request was routed from here.
     */
    private void start(Message request, Contact via, Consumer<Message> reply, Set<Id> tried) {
        long id = nextRequestId++;
        long started = now();
        MessageType op = request.type();
        Routed routed;
        switch (op) {
            case CLIENT_PUT -> {
                ClientPut p = (ClientPut) request;
                routed = new PutRequest(p.key(), p.value(), p.ttlSeconds(), p.secretHash(), self, id, 0);
            }
            case CLIENT_GET -> {
                ClientGet g = (ClientGet) request;
                routed = new GetRequest(g.key(), g.routing(), g.maxValues(), g.placemark(), self, id, 0,
                        g.wantHolders(), Cost.ZERO);
            }
            case CLIENT_REMOVE -> {
                ClientRemove r = (ClientRemove) request;
                int ttl = r.ttlSeconds() <= 0 ? config.ttlSecondsMax() : r.ttlSeconds();
                routed = new RemoveRequest(r.key(), r.valueHash(), r.secret(), ttl, self, id, 0);
            }
            default -> throw new IllegalStateException("not a client request, yet valid: " + op);
        }
        boolean ok = pending.register(id, null, started, config.requestTimeoutMillis() * MILLIS, true,
                new ReplyHandler() {
                    public void onReply(Envelope e) {
                        Message m = e.body();
                        listener.clientRequestDone(op, statusOf(m), now() - started,
                                m instanceof GetReply g ? g.hops() : 0);
                        if (m instanceof GetReply g && request instanceof ClientGet cg) {
                            listener.clientGetCost(cg.routing(), g.cost());
                        }
                        reply.accept(m);
                    }

                    public void onTimeout() {
                        listener.clientRequestDone(op, Status.TIMEOUT, now() - started, 0);
                        reply.accept(new ErrorReply(stopped ? Status.UNAVAILABLE : Status.TIMEOUT,
                                "no answer within " + config.requestTimeoutMillis() + " ms"));
                    }
                });
        if (!ok) {
            reply.accept(new ErrorReply(Status.UNAVAILABLE, "too many requests in flight"));
            return;
        }
        if (via != null) {
            forward(routed, via, tried);
        } else if (routed instanceof GetRequest g && answersGet(g.key())) {
            deliver(routed);
        } else if (request instanceof ClientGet g && g.routing() == RoutingMode.ITERATIVE) {
            startIterative(g, id);
        } else {
            route(routed, new HashSet<>());
        }
    }

    private static Status statusOf(Message m) {
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
