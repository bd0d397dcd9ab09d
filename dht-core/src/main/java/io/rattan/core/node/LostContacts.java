package io.rattan.core.node;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Neighbours this node declared dead, pinged again for a while so that the two sides of a partition find each other
 * once it heals. Across a partition every node declares the other side's nodes dead and drops them from its leaf set
 * and table; since second-hand contacts enter only once they answer a probe ({@link SecondHandProbes}), nothing
 * brings them back unless some node hears from the other side directly, and each side would stay a ring of its own,
 * acknowledging puts on replicas the other side's gets never ask. Cassandra's gossip recovers the same way (each
 * round may go to a member it holds unreachable); OpenDHT contacts its bootstrap nodes again.
 *
 * <p>Only contacts this node verified itself are kept (they were in its leaf set or routing table, which only
 * contacts heard from directly enter), and they are only pinged: nothing is routed to them or listed to others until
 * they answer, and then they enter as any contact heard from directly does ({@link Membership#heard}). What this
 * costs is bounded: at most {@link #MAX} contacts, at most {@code idsPerIp} of one host (other than this node's own),
 * each pinged {@link #FIRST_RETRY_NANOS} after its death and then at doubling intervals up to
 * {@link #RETRY_MAX_NANOS}, for {@link #KEEP_NANOS}; at most {@link #PROBES_PER_ROUND} pings per maintenance period.
 * When one of them speaks again, the partition may have healed: every other lost contact is due at once. Owned by the
 * node's event loop.
 */
final class LostContacts {

    /** Most lost contacts remembered; the oldest loss makes room for a new one. */
    static final int MAX = 32;
    /** Most lost contacts pinged in one maintenance period. */
    static final int PROBES_PER_ROUND = 4;
    static final long FIRST_RETRY_NANOS = 2_000_000_000L;
    static final long RETRY_MAX_NANOS = 60_000_000_000L;
    /** How long a lost contact is pinged again; a partition longer than this needs the nodes' operators. */
    static final long KEEP_NANOS = 10L * 60 * 1_000_000_000L;

    /** One lost contact; only this class changes it. */
    private static final class Lost {
        final Contact contact;
        final String host;
        final long lostAtNanos;
        long intervalNanos = FIRST_RETRY_NANOS;
        long dueNanos;
        boolean probing;

        Lost(Contact contact, String host, long lostAtNanos) {
            this.contact = contact;
            this.host = host;
            this.lostAtNanos = lostAtNanos;
            this.dueNanos = lostAtNanos + FIRST_RETRY_NANOS;
        }
    }

    private final NodeContext ctx;
    private final Peers peers;
    private final int perHost;
    private final String selfHost;
    // Iterated in the order of loss (insertion), never in hash order: what the node sends cannot depend on hashes.
    private final LinkedHashMap<Id, Lost> lost = new LinkedHashMap<>();
    private final Map<String, Integer> countByHost = new HashMap<>();

    LostContacts(NodeContext ctx, Peers peers) {
        this.ctx = ctx;
        this.peers = peers;
        this.perHost = ctx.config().idsPerIp();
        this.selfHost = HostKeys.of(ctx.self().address().host());
    }

    /** {@code c}, a neighbour this node verified itself, was declared dead: ping it again later. */
    void lost(Contact c) {
        remove(c.id());
        String host = HostKeys.of(c.address().host());
        if (perHost > 0 && !host.equals(selfHost) && countByHost.getOrDefault(host, 0) >= perHost) {
            return;
        }
        if (lost.size() >= MAX) {
            remove(lost.keySet().iterator().next());
        }
        lost.put(c.id(), new Lost(c, host, ctx.now()));
        countByHost.merge(host, 1, Integer::sum);
    }

    /**
     * A message came from {@code id} itself. If it was a lost contact, it is back (it enters the tables as any contact
     * heard from), and so may the others be: a partition healed, or the network came back. They are all due now.
     */
    void heard(Id id) {
        if (lost.isEmpty() || !remove(id)) {
            return;
        }
        long now = ctx.now();
        for (Lost l : lost.values()) {
            l.dueNanos = Math.min(l.dueNanos, now);
        }
    }

    /** One maintenance period's share: pings the lost contacts that are due, at most {@link #PROBES_PER_ROUND}. */
    void probeRound() {
        if (lost.isEmpty()) {
            return;
        }
        long now = ctx.now();
        List<Lost> due = new ArrayList<>();
        for (Iterator<Lost> it = lost.values().iterator(); it.hasNext(); ) {
            Lost l = it.next();
            if (now - l.lostAtNanos > KEEP_NANOS && !l.probing) {
                it.remove();
                countByHost.computeIfPresent(l.host, (h, n) -> n == 1 ? null : n - 1);
            } else if (!l.probing && l.dueNanos <= now && due.size() < PROBES_PER_ROUND) {
                due.add(l);
            }
        }
        for (Lost l : due) {
            probe(l);
        }
    }

    /** Its answer enters through {@link Membership#heard}, which ends its loss; a timeout backs it off. */
    private void probe(Lost l) {
        l.probing = true;
        ctx.outbox().request(l.contact, new Ping(), peers.rtoNanos(l.contact.id()), ReplyHandler.of(
                reply -> l.probing = false,
                () -> {
                    l.probing = false;
                    l.intervalNanos = Math.min(2 * l.intervalNanos, RETRY_MAX_NANOS);
                    l.dueNanos = ctx.now() + l.intervalNanos;
                }));
    }

    private boolean remove(Id id) {
        Lost l = lost.remove(id);
        if (l == null) {
            return false;
        }
        countByHost.computeIfPresent(l.host, (h, n) -> n == 1 ? null : n - 1);
        return true;
    }

    boolean contains(Id id) {
        return lost.containsKey(id);
    }

    int size() {
        return lost.size();
    }
}
