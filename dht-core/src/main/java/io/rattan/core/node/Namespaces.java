package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.Clock;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.NamespaceDefs;
import io.rattan.core.msg.NamespaceMessages.NamespaceQuery;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.net.Contact;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespaces this node knows, and each one's {@link DataPlane}. An operator's definition does not replace one
 * held ({@link #define}); of two heard for a name, every node keeps the same one ({@code WINNER}, whenever the other
 * was made: not proof against a lying member, docs/security.md section 6); a retired one stays retired. A node that
 * learns something new passes it on once to every node it knows (so a definition floods the overlay), tells a new
 * leaf-set member all it knows, and tells one leaf-set member a round ({@link #antiEntropyRound}); a node asked for a
 * namespace it does not know asks the asker. A node that knows no namespace sends nothing of this: an overlay without
 * namespaces behaves as before they existed.
 */
final class Namespaces {

    private static final Logger log = LoggerFactory.getLogger(Namespaces.class);
    private static final int ASKING_MAX = 8;
    /** Which of two definitions of one name every node keeps: the one with the fewer replicas, and so on. */
    private static final Comparator<NamespaceDefinition> WINNER = Comparator
            .comparingInt(NamespaceDefinition::replicas).thenComparingInt(NamespaceDefinition::writeQuorum)
            .thenComparing(NamespaceDefinition::inMemory).thenComparingInt(NamespaceDefinition::ttlSecondsMax)
            .thenComparingInt(NamespaceDefinition::valueBytesMax).thenComparing(NamespaceDefinition::routing);

    private final NodeContext ctx;
    private final Membership members;
    private final BooleanSupplier joined;
    private final NamespaceStores stores;
    private final Clock clock;
    private final PlantedBugs bugs;
    private final DataPlane defaultPlane;
    private final Map<String, NamespaceDefinition> known = new TreeMap<>();
    private final Map<String, DataPlane> planes = new TreeMap<>();
    // Each live namespace's store, which a definition that replaces another of the same kind keeps.
    private final Map<String, Store> openStores = new TreeMap<>();
    // Names asked for and not yet answered: one question at a time per name, a few at a time in all.
    private final Set<String> asking = new LinkedHashSet<>();
    // The leaf-set members told every definition since they joined the leaf set.
    private Set<Id> told = new HashSet<>();

    Namespaces(NodeContext ctx, Membership members, BooleanSupplier joined, NamespaceStores stores, Clock clock,
               PlantedBugs bugs, DataPlane defaultPlane) {
        this.ctx = ctx;
        this.members = members;
        this.joined = joined;
        this.stores = stores;
        this.clock = clock;
        this.bugs = bugs;
        this.defaultPlane = defaultPlane;
        for (NamespaceDefinition d : stores.saved()) {
            known.put(d.name(), d);
            if (!d.retired() && problemHere(d) != null) {
                // Known, so that it is not learned otherwise, but not served: its copies go to other replicas.
                log.warn("{} does not serve namespace {}: {}", ctx.tag(), d.name(), problemHere(d));
            } else if (!d.retired()) {
                open(d, null);
            }
        }
    }

    /** The jobs of {@code name}, or null when this node knows no live namespace of that name. */
    DataPlane plane(String name) {
        return NamespaceDefinition.DEFAULT.equals(name) ? defaultPlane : planes.get(name);
    }

    /** Every live namespace's jobs, the default's first. */
    List<DataPlane> all() {
        List<DataPlane> all = new ArrayList<>(planes.size() + 1);
        all.add(defaultPlane);
        all.addAll(planes.values());
        return all;
    }

    /** The definitions this node knows, retired ones included, by name. */
    List<NamespaceDefinition> definitions() {
        return List.copyOf(known.values());
    }

    /** What a definition asked for by an operator did: see {@link NamespaceChange}. */
    NamespaceChange define(NamespaceDefinition d) {
        if (d.retired()) {
            throw new IllegalArgumentException("define a namespace, then retire it");
        }
        String problem = problemHere(d);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        NamespaceDefinition held = known.get(d.name());
        if (held != null) {
            return held.retired() ? NamespaceChange.RETIRED : held.sameSettings(d) ? NamespaceChange.UNCHANGED
                    : NamespaceChange.CONFLICT;
        }
        if (known.size() >= NamespaceDefinition.COUNT_MAX) {
            return NamespaceChange.FULL;
        }
        learnAndPassOn(List.of(d), null);
        return NamespaceChange.CREATED;
    }

    /** Retires {@code name} here and passes it on: {@code RETIRED}, {@code UNCHANGED} if it was, or {@code UNKNOWN}. */
    NamespaceChange retire(String name) {
        NamespaceDefinition held = known.get(name);
        if (held == null) {
            return NamespaceChange.UNKNOWN;
        }
        if (held.retired()) {
            return NamespaceChange.UNCHANGED;
        }
        learnAndPassOn(List.of(held.retire()), null);
        return NamespaceChange.RETIRED;
    }

    /** Why this node cannot hold {@code d} as a namespace (its k against the leaf set), or null. */
    private String problemHere(NamespaceDefinition d) {
        if (d.replicas() > ctx.config().leafSetHalf() + 1) {
            return "replicas must be at most the leaf set's half + 1 (" + (ctx.config().leafSetHalf() + 1) + "), got "
                    + d.replicas();
        }
        return d.valueBytesMax() > NodeConfig.WIRE_VALUE_BYTES_MAX ? "valueBytesMax must be at most "
                + NodeConfig.WIRE_VALUE_BYTES_MAX + ", got " + d.valueBytesMax() : null;
    }

    /** Definitions a peer passed on: what is new here is passed on in turn. */
    void onDefinitions(Contact from, NamespaceDefs m) {
        learnAndPassOn(m.definitions(), from);
    }

    /** The answer to a peer's question: the definition asked for, or all. */
    NamespaceDefs answer(NamespaceQuery q) {
        if (q.name().isEmpty()) {
            return new NamespaceDefs(definitions());
        }
        NamespaceDefinition d = known.get(q.name());
        return new NamespaceDefs(d == null ? List.of() : List.of(d));
    }

    /**
     * A peer (or a client) named namespace {@code name}, unknown here: asks {@code peer} for it (one question at a
     * time per name), so that the next message of it is served.
     */
    void unknown(String name, Contact peer) {
        if (known.containsKey(name) || known.size() >= NamespaceDefinition.COUNT_MAX || peer == null
                || !NamespaceDefinition.validName(name) || asking.size() >= ASKING_MAX || !asking.add(name)) {
            return;
        }
        ctx.outbox().request(peer, new NamespaceQuery(name), nanos(ctx.config().requestTimeoutMillis()),
                ReplyHandler.of(reply -> asking.remove(name), () -> asking.remove(name)));
    }

    /**
     * A peer's message {@code e} of namespace {@code name}, which this node does not serve (not heard of yet, retired,
     * or its store would not open): a routed request is acknowledged and its origin told, a copy or removal refused,
     * so that the sender neither waits out its timeout nor takes this node for dead; and the definition is asked for.
     * (A repair, read or watch request goes unanswered: its sender times out, as with a node that is down.)
     */
    void unserved(String name, Contact from, Envelope e) {
        ErrorReply refused = new ErrorReply(Status.UNAVAILABLE, "namespace '" + name + "' is not served at "
                + ctx.self().id().shortHex() + " (not heard of yet, or retired)");
        if (e.body() instanceof Routed routed) {
            ctx.outbox().send(from.address(), e.requestId(), new HopAck());
            ctx.outbox().replyToOrigin(routed, refused);
        } else if (e.requestId() != 0 && (e.body() instanceof StoreReplicas || e.body() instanceof RemoveReplica)) {
            ctx.outbox().send(from.address(), e.requestId(), refused);
        }
        unknown(name, from);
    }

    /** A client asked for {@code name}, unknown here: asks this node's nearest neighbours for it. */
    void unknownAtGateway(String name) {
        List<Contact> leaf = members.leafMembers();
        if (!leaf.isEmpty()) {
            unknown(name, leaf.get(ctx.random().nextInt(leaf.size())));
        }
    }

    /** The node (re)started: whatever its disk holds, it holds none of the puts since it stopped. */
    void allChanged() {
        all().forEach(p -> p.gets.allChanged());
    }

    /** Where a store is in a fault, the copies refused meanwhile are missing until repair brings them: unsettled. */
    void storeFaultsNoted() {
        for (DataPlane p : all()) {
            if (!p.replica.healthy()) {
                p.gets.storeFaulted();
            }
        }
    }

    void answersResumed(Id member) {
        for (DataPlane p : all()) {
            p.gets.answersResumed(member);
            p.repair.answersResumed(member);
        }
    }

    /** The node stopped: every namespace's watches end. */
    void stop() {
        all().forEach(DataPlane::stop);
    }

    /**
     * The leaf set changed: every namespace's gets and repair hear it, and each new member hears every definition
     * this node knows.
     */
    void leafSetChanged() {
        all().forEach(DataPlane::leafSetChanged);
        if (known.isEmpty() || !joined.getAsBoolean()) {
            return;
        }
        Set<Id> now = new HashSet<>();
        for (Contact c : members.leafMembers()) {
            now.add(c.id());
            if (!told.contains(c.id())) {
                ctx.outbox().send(c.address(), 0, new NamespaceDefs(definitions()));
            }
        }
        told = now;
    }

    /**
     * Every namespace's repair round; and one leaf-set member, at random, hears every definition this node knows (the
     * flood's anti-entropy).
     */
    void antiEntropyRound() {
        all().forEach(p -> p.repair.antiEntropyRound());
        List<Contact> leaf = members.leafMembers();
        if (!known.isEmpty() && !leaf.isEmpty()) {
            ctx.outbox().send(leaf.get(ctx.random().nextInt(leaf.size())).address(), 0,
                    new NamespaceDefs(definitions()));
        }
    }

    private void learnAndPassOn(List<NamespaceDefinition> heard, Contact from) {
        List<NamespaceDefinition> news = new ArrayList<>();
        int refused = 0;
        for (NamespaceDefinition d : heard) {
            Boolean learned = learn(d);
            if (learned == null) {
                refused++;
            } else if (learned) {
                news.add(d);
            }
        }
        if (refused > 0) {
            // Once per message: a frame may hold thousands of definitions.
            log.warn("{} ignores {} namespace definitions from {}: it holds its most namespaces ({}), or they do not "
                    + "fit its leaf set", ctx.tag(), refused, from, NamespaceDefinition.COUNT_MAX);
        }
        if (news.isEmpty()) {
            return;
        }
        stores.save(definitions());
        Set<Contact> to = new LinkedHashSet<>(members.leafMembers());
        for (int i = 0; i < members.tableSize(); i++) {
            to.add(members.tableEntry(i));
        }
        NamespaceDefs m = new NamespaceDefs(news);
        for (Contact c : to) {
            if (from == null || !c.id().equals(from.id())) {
                ctx.outbox().send(c.address(), 0, m);
            }
        }
    }

    /** True when {@code d} changed what this node holds, false when it did not, null when it was refused. */
    private Boolean learn(NamespaceDefinition d) {
        NamespaceDefinition held = known.get(d.name());
        if (held == null) {
            if (known.size() >= NamespaceDefinition.COUNT_MAX || problemHere(d) != null) {
                return null;
            }
            known.put(d.name(), d);
            if (!d.retired()) {
                open(d, null);
            }
            log.info("{} learned namespace {}", ctx.tag(), d);
            return true;
        }
        if (held.retired() || !d.retired() && (held.sameSettings(d) || WINNER.compare(d, held) > 0)) {
            return false;
        }
        known.put(d.name(), d);
        DataPlane plane = planes.remove(d.name());
        if (plane != null) {
            plane.retire();
        }
        Store kept = d.retired() || d.inMemory() != held.inMemory() ? null : openStores.get(d.name());
        if (kept == null) {
            dropLater(held);
        }
        if (d.retired()) {
            log.info("{} retired namespace {}: its values here are dropped", ctx.tag(), d.name());
        } else {
            // Two definitions made at once on two nodes: every node keeps the same one, the first by WINNER.
            log.warn("{} replaces namespace {} by the definition made beside it: {}", ctx.tag(), held, d);
            open(d, kept);
        }
        return true;
    }

    /**
     * Closes and deletes a retired (or replaced) namespace's store once what its jobs had in flight is over: they
     * ignore it (their context is stopped), and the store outlives the last task that may still touch it. A store
     * of a namespace retired just before the node stopped is deleted at its next start ({@code NamespaceStores}).
     */
    private void dropLater(NamespaceDefinition held) {
        // A memory store goes with its jobs; only a disk one (which a memory successor never reopens) is dropped.
        if (openStores.remove(held.name()) != null && !held.inMemory()) {
            ctx.scheduler().schedule(nanos(2 * ctx.config().requestTimeoutMillis()), () -> stores.drop(held.name()));
        }
    }

    private void open(NamespaceDefinition d, Store kept) {
        NodeConfig node = ctx.config();
        NodeConfig config = node.toBuilder().namespace(d.name()).replicas(d.replicas(), d.writeQuorum())
                .limits(d.valueBytesMax(), d.ttlSecondsMax(), node.pageValuesMax(),
                        Math.max(node.pageBytesMax(), d.valueBytesMax())).build();
        Store store = kept;
        try {
            store = store != null ? store : stores.open(d);
        } catch (StoreException e) {
            // Known but not served here: its requests are refused (NOT_FOUND) and its copies go to other replicas.
            log.error("{} cannot open the store of namespace {}: {}", ctx.tag(), d.name(), e.toString());
            return;
        }
        openStores.put(d.name(), store);
        DataPlane plane = new DataPlane(ctx.inNamespace(d.name(), config), members, joined, store, clock, bugs);
        planes.put(d.name(), plane);
        // A node that learns a namespace (or joins the overlay) late holds none of its puts so far: unsettled.
        plane.gets.allChanged();
    }

    /** Records held in each live namespace but the default, by name. */
    Map<String, Long> records() {
        Map<String, Long> counts = new TreeMap<>();
        planes.forEach((name, p) -> counts.put(name, p.replica.size()));
        return counts;
    }

    /**
     * Hands every namespace's values on, one namespace after the other ({@link Repair#handOff}), the default's last
     * (its hand-off ends with the goodbye), then {@code done}.
     */
    void handOff(Runnable done) {
        List<DataPlane> order = new ArrayList<>(planes.values());
        order.add(defaultPlane);
        handOff(order, 0, done);
    }

    private static void handOff(List<DataPlane> planes, int i, Runnable done) {
        if (i == planes.size()) {
            done.run();
        } else {
            planes.get(i).repair.handOff(() -> handOff(planes, i + 1, done));
        }
    }
}
