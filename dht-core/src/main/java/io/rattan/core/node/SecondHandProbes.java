package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Contacts learned second hand are probed before they are used or advertised (issue 18). Only a contact this node
 * has heard from itself, on a connection the transport verified, enters the leaf set or the routing table
 * ({@link Membership#heard}), so only such contacts are routed to, chosen as replicas, or listed to others. A contact
 * another node names (in a leaf-set exchange, a join's contact list, a pong's suggestion) is pinged first, if it
 * would take a place; the answer comes from the verified contact, and that one is what {@code heard} lets in, so an
 * id named at an address where it does not answer never gets in. Probes go at once and in parallel, bounded by
 * {@link Candidates}.
 *
 * <p>While the node joins, the contacts its join path names are held instead, as they would fill its tables, and
 * pinged all at once when its root answers ({@link #releaseHeld}); the join completes when every ping is answered or
 * timed out, one round trip after the root's answer. Owned by the node's event loop.
 */
final class SecondHandProbes {

    /** Most second-hand contacts probed at once after the join. */
    static final int CANDIDATES_MAX = 256;
    /**
     * Most contacts a joiner pings when its root answers: every leaf-set candidate, then table candidates deepest row
     * first. Every joiner's top rows name the same few early nodes; pinging them from every joiner would swamp them
     * (docs/node.md, "Joining").
     */
    static final int JOIN_PROBES_MAX = 64;
    /** Most contacts held for the table while joining (the leaf-set candidates are bounded by the leaf set). */
    private static final int HELD_TABLE_MAX = 256;

    private final NodeContext ctx;
    private final LeafSet leafSet;
    private final RoutingTable table;
    private final Peers peers;
    private final Consumer<Contact> add;
    private final Candidates candidates;
    // While joining, the contacts the join path named, as they would fill the tables; null otherwise.
    private LeafSet heldLeaves;
    private RoutingTable heldTable;

    /** {@code add} lets a contact in as one heard from directly ({@link Membership#add}). */
    SecondHandProbes(NodeContext ctx, LeafSet leafSet, RoutingTable table, Peers peers, Consumer<Contact> add) {
        this.ctx = ctx;
        this.leafSet = leafSet;
        this.table = table;
        this.peers = peers;
        this.add = add;
        this.candidates = new Candidates(CANDIDATES_MAX, ctx.config().idsPerIp(), ctx.self().address().host());
    }

    /**
     * A contact another node told us about. It is probed only if it would take a place (a leaf-set place, or a table
     * slot with room); recently dead nodes stay out until they speak to us themselves. A contact in the table exactly
     * as named was heard from directly (only such contacts enter), so it may take a leaf-set place at once.
     */
    void learn(Contact c) {
        // Most contacts of a leaf-set exchange are members already, offered to the table when they joined the leaf
        // set; skipping them spares a lookup in the peers and the table per contact, much of a simulated node's
        // work. A contact we hear from directly is still offered every time, so the table sees measured members.
        if (leafSet.holds(c) || c.id().equals(ctx.self().id()) || peers.isRecentlyDead(c.id(), ctx.now())) {
            return;
        }
        if (heldLeaves != null) {
            hold(c);
            return;
        }
        Contact known = table.find(c.id());
        if (known != null && known.equals(c)) {
            add.accept(c);
            return;
        }
        if (known == null && !leafSet.wouldTake(c) && !table.wouldTake(c)) {
            // It would take no place here: there is nothing to probe it for.
            return;
        }
        probe(c);
    }

    /** Pings a second-hand contact, if {@link Candidates} has room for it; its answer enters through heard(). */
    private void probe(Contact c) {
        if (!candidates.admit(c)) {
            return;
        }
        // Unanswered, it is no neighbour: nothing to suspect or re-route, and no state was made for it.
        ping(c, () -> candidates.settled(c.id()));
    }

    /**
     * Pings {@code c} and runs {@code done} on its answer or its timeout. The pong's clock reading goes to the
     * expiry clock as not asked for (only leaf-set members are asked the time, {@code TableMaintenance}): whoever names
     * contacts to this node chooses whom it probes, and liars on a few hosts, naming one another to every node, were
     * most of the hosts a node had heard (docs/security.md, item 7).
     */
    private void ping(Contact c, Runnable done) {
        ClockSamples.ping(ctx, c, peers.rtoNanos(c.id()), false, reply -> done.run(), done);
    }

    /** Whether a second-hand contact with this id is being probed. */
    boolean isProbing(Id id) {
        return candidates.contains(id);
    }

    /** Second-hand contacts being probed now (at most {@link #CANDIDATES_MAX}). */
    int probing() {
        return candidates.size();
    }

    /**
     * From now until {@link #releaseHeld}, contacts learned are held, as they would fill the leaf set and the table,
     * rather than probed one by one: the node is joining.
     */
    void holdLearned() {
        NodeConfig config = ctx.config();
        heldLeaves = new LeafSet(ctx.self(), config.leafSetHalf(), config.idsPerIp());
        // Unmeasured, a slot keeps the first contacts offered, as the table itself would.
        heldTable = new RoutingTable(ctx.self().id(), config.candidatesPerSlot(), id -> -1, config.idsPerIp(),
                ctx.self().address().host());
    }

    private void hold(Contact c) {
        heldLeaves.add(c);
        if (heldTable.size() < HELD_TABLE_MAX) {
            heldTable.add(c);
        }
    }

    /**
     * Pings the held contacts at once, in parallel: every leaf-set candidate and table candidates deepest row first,
     * at most {@link #JOIN_PROBES_MAX}, sent deepest row first (those nodes share the longest prefix with this one,
     * so their tables may have a slot it fills). Each ping also announces this node to the one it reaches. Runs
     * {@code settled} once every ping has been answered or has timed out. Held contacts not pinged are dropped;
     * later exchanges, pongs and the nodes that contact this one fill the top rows.
     */
    void releaseHeld(Runnable settled) {
        if (heldLeaves == null) {
            settled.run();
            return;
        }
        Id self = ctx.self().id();
        Comparator<Contact> deepestFirst = Comparator.comparingInt((Contact c) -> self.sharedPrefixLength(c.id()))
                .reversed();
        List<Contact> batch = new ArrayList<>(heldLeaves.members());
        List<Contact> rest = heldTable.all();
        rest.sort(deepestFirst);
        for (Contact c : rest) {
            if (batch.size() >= JOIN_PROBES_MAX) {
                break;
            }
            if (!heldLeaves.contains(c.id())) {
                batch.add(c);
            }
        }
        heldLeaves = null;
        heldTable = null;
        batch.sort(deepestFirst);
        if (batch.isEmpty()) {
            settled.run();
            return;
        }
        int[] left = {batch.size()};
        Runnable one = () -> {
            if (--left[0] == 0) {
                settled.run();
            }
        };
        for (Contact c : batch) {
            // Tracked where there is room, so that a late contact list naming it again does not ping it twice.
            boolean tracked = candidates.admit(c);
            ping(c, () -> {
                if (tracked) {
                    candidates.settled(c.id());
                }
                one.run();
            });
        }
    }
}
