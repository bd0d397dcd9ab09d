package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.net.Contact;
import java.util.ArrayDeque;
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
 * {@link #RETRY_MAX_NANOS}, for {@link #KEEP_NANOS}; at most {@link #PROBES_PER_ROUND} such pings per maintenance
 * period. When one of them speaks again, the partition may have healed: every other lost contact is due at once,
 * and pinged at once unless pinged within {@link #ASK_GAP_MAX_NANOS}. Gets of keys whose replicas they would be among
 * ping them too ({@link #ask}), at most once per {@link #ASK_GAP_MAX_NANOS} each once they have stayed silent a while.
 * Owned by the node's event loop.
 */
final class LostContacts {

    /** Most lost contacts remembered; the oldest loss makes room for a new one. */
    static final int MAX = 32;
    /** Most lost contacts pinged in one maintenance period. */
    static final int PROBES_PER_ROUND = 4;
    /**
     * The first ping after a death. A partition's sides declare each other dead as it heals as often as not, and meet
     * again only when such a ping crosses; until then a node answers gets from its one-sided view, so the first ping
     * is soon (docs/history.md, "A lost neighbour is first pinged after half a second"). A ping to a dead node costs
     * one message.
     */
    static final long FIRST_RETRY_NANOS = 500_000_000L;
    static final long RETRY_MAX_NANOS = 60_000_000_000L;
    /** How long a lost contact is pinged again; a partition longer than this needs the nodes' operators. */
    static final long KEEP_NANOS = 10L * 60 * 1_000_000_000L;
    /** Lost contacts that speak again within this of each other came back together ({@link #returnedWithin}). */
    static final long TOGETHER_NANOS = 1_000_000_000L;
    /** The longest gap between two gets' pings of a lost contact ({@link #ask}); each unanswered one doubles it. */
    static final long ASK_GAP_MAX_NANOS = 1_000_000_000L;

    /** One lost contact; only this class changes it. */
    private static final class Lost {
        final Contact contact;
        final String host;
        final long lostAtNanos;
        /**
         * How long a get's ping of it waits, and the first gap between two: its smoothed RTT when it was lost, twice,
         * plus the RTO's floor; at most 2 floors.
         */
        final long askWaitNanos;
        long intervalNanos = FIRST_RETRY_NANOS;
        long dueNanos;
        boolean probing;
        /**
         * Another lost contact spoke again while this one's ping was out: that ping may have been lost to a partition
         * that has healed since, so its timeout pings it again at once rather than back off.
         */
        boolean againAtTimeout;
        /** A get's ping ({@link #ask}) is out. */
        boolean asking;
        /** When it was last pinged, by {@link #probe} or {@link #ask}. */
        long pingedAtNanos;
        long askGapNanos;

        Lost(Contact contact, String host, long lostAtNanos, long askWaitNanos) {
            this.contact = contact;
            this.host = host;
            this.lostAtNanos = lostAtNanos;
            this.askWaitNanos = askWaitNanos;
            this.dueNanos = lostAtNanos + FIRST_RETRY_NANOS;
            this.pingedAtNanos = lostAtNanos - ASK_GAP_MAX_NANOS;
            this.askGapNanos = askWaitNanos;
        }
    }

    private final NodeContext ctx;
    private final Peers peers;
    private final int perHost;
    private final String selfHost;
    // Iterated in the order of loss (insertion), never in hash order: what the node sends cannot depend on hashes.
    private final LinkedHashMap<Id, Lost> lost = new LinkedHashMap<>();
    private final Map<String, Integer> countByHost = new HashMap<>();
    /** When lost contacts spoke again ({@link #heard}), oldest first: the last {@link #MAX} at most. */
    private final ArrayDeque<Long> returnedAtNanos = new ArrayDeque<>();

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
        long srtt = peers.srttNanos(c.id());
        long floor = NodeContext.nanos(ctx.config().rtoMinMillis());
        // Long enough for an answer over the link it had; at most twice the RTO's floor, so that gets of a dead node's
        // keys ping it a few times a second at first, not once per backed-off RTO.
        long wait = srtt > 0 ? Math.min(floor + 2 * srtt, 2 * floor) : 2 * floor;
        lost.put(c.id(), new Lost(c, host, ctx.now(), wait));
        countByHost.merge(host, 1, Integer::sum);
    }

    /**
     * A message came from {@code id} itself. If it was a lost contact, it is back (it enters the tables as any contact
     * heard from), and so may the others be: a partition healed, or the network came back. They are all due now, and
     * those not pinged within {@link #ASK_GAP_MAX_NANOS} are pinged at once, not at the next maintenance period's
     * {@value #PROBES_PER_ROUND}: until they answer, gets of their keys are answered without them.
     */
    void heard(Id id) {
        if (lost.isEmpty() || !remove(id)) {
            return;
        }
        long now = ctx.now();
        if (returnedAtNanos.size() == MAX) {
            returnedAtNanos.removeFirst();
        }
        returnedAtNanos.addLast(now);
        for (Lost l : List.copyOf(lost.values())) {
            l.dueNanos = Math.min(l.dueNanos, now);
            l.againAtTimeout = l.probing;
            // Not again within the gap (those wait for the next maintenance period): a node declared dead and heard
            // again over and over (a slow one) would ping every lost contact each time.
            if (!l.probing && now - l.pingedAtNanos >= ASK_GAP_MAX_NANOS) {
                probe(l);
            }
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

    /**
     * Its answer enters through {@link Membership#heard}, which ends its loss; a timeout backs it off, unless another
     * lost contact spoke again meanwhile ({@link Lost#againAtTimeout}): then it is pinged again at once, since a ping
     * sent just before a partition healed may have been lost to it.
     */
    private void probe(Lost l) {
        l.probing = true;
        ping(l, peers.rtoNanos(l.contact.id()), () -> l.probing = false, () -> {
            if (l.againAtTimeout) {
                l.againAtTimeout = false;
                probe(l);
                return;
            }
            l.intervalNanos = Math.min(2 * l.intervalNanos, RETRY_MAX_NANOS);
            l.dueNanos = ctx.now() + l.intervalNanos;
        });
    }

    /** Pings {@code l}; {@code settled} runs at its answer or timeout, {@code unanswered} after it at a timeout. */
    private void ping(Lost l, long timeoutNanos, Runnable settled, Runnable unanswered) {
        l.pingedAtNanos = ctx.now();
        ctx.outbox().request(l.contact, new Ping(), timeoutNanos, ReplyHandler.of(
                reply -> settled.run(),
                () -> {
                    settled.run();
                    unanswered.run();
                }));
    }

    /**
     * A get is served of a key whose replicas lost contact {@code id} would be among ({@link #amongReplicas}): pings
     * it, without waiting, unless a ping to it is out already or went out less than its gap ago: its ping wait at
     * first, doubled by each ping unanswered, up to {@link #ASK_GAP_MAX_NANOS} (a refused connection fails at once).
     * Each waits that wait, not the peer's backed-off RTO. A partition's side that healed answers the first such ping
     * and is back ({@link #heard}) for the gets after it, up to a minute before the periodic pings would have found
     * it; a dead node costs its neighbours at most one ping a second each while its keys are read.
     */
    void ask(Id id) {
        Lost l = lost.get(id);
        long now = ctx.now();
        if (l == null || l.asking || now - l.pingedAtNanos < l.askGapNanos) {
            return;
        }
        l.asking = true;
        ping(l, l.askWaitNanos, () -> l.asking = false,
                () -> l.askGapNanos = Math.min(2 * l.askGapNanos, ASK_GAP_MAX_NANOS));
    }

    private boolean remove(Id id) {
        Lost l = lost.remove(id);
        if (l == null) {
            return false;
        }
        countByHost.computeIfPresent(l.host, (h, n) -> n == 1 ? null : n - 1);
        return true;
    }

    /**
     * The lost contacts that would be among the {@code k} replicas of {@code key} if they were still members, in the
     * order of loss: among the k closest to the key of {@code view} (this node's replica set of it) and all lost
     * contacts. Empty in a ring that lost nobody near the key. A partition's two sides lose each other, and once it
     * heals the nodes of one side take themselves for the replicas of keys whose puts the other side acknowledged,
     * until a ping crosses; the gets of those keys ping them ({@link GetAnswers#serve}).
     */
    List<Contact> amongReplicas(Id key, List<Contact> view, int k) {
        if (lost.isEmpty()) {
            return List.of();
        }
        List<Contact> closer = new ArrayList<>();
        Contact farthest = view.get(view.size() - 1);
        for (Lost l : lost.values()) {
            if (view.size() < k || l.contact.id().isCloserTo(key, farthest.id())) {
                closer.add(l.contact);
            }
        }
        if (closer.size() <= 1) {
            return closer;
        }
        // Of several, only those among the k closest with the view's members.
        List<Contact> all = new ArrayList<>(view);
        all.addAll(closer);
        all.sort((a, b) -> a.id().equals(b.id()) ? 0 : a.id().isCloserTo(key, b.id()) ? -1 : 1);
        List<Contact> top = all.subList(0, Math.min(k, all.size()));
        closer.removeIf(c -> !top.contains(c));
        return closer;
    }

    /**
     * Whether {@code count} lost contacts (or more) spoke again within {@link #TOGETHER_NANOS} of each other, the last
     * of them within the last {@code windowNanos}: a partition that cut this node off from that many may have healed
     * ({@link GetAnswers#settled}). When one lost contact speaks again every other one is pinged at once
     * ({@link #heard}), so a healed partition's nodes come back together. One alone, or returns apart, are more often
     * slow nodes declared dead and heard again, or nodes back from a crash, and counting them would make gets around
     * slow nodes read more.
     */
    boolean returnedWithin(long windowNanos, int count) {
        // Every get asks this: without a return in the window it answers without copying anything.
        if (returnedAtNanos.size() < count || ctx.now() - returnedAtNanos.peekLast() >= windowNanos) {
            return false;
        }
        Long[] at = returnedAtNanos.toArray(new Long[0]);
        for (int last = at.length - 1; last >= count - 1 && ctx.now() - at[last] < windowNanos; last--) {
            if (at[last] - at[last - count + 1] <= TOGETHER_NANOS) {
                return true;
            }
        }
        return false;
    }

    boolean contains(Id id) {
        return lost.containsKey(id);
    }

    int size() {
        return lost.size();
    }
}
