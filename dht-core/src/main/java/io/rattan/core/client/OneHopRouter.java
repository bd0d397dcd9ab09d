package io.rattan.core.client;

import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Where a one-hop get goes: straight to a node its {@link OneHopImage} says holds the key, preferring the replica
 * measured fastest, learning the image and the replicas' delays from the answers only. With an empty image the
 * caller's fallback (its own gateway) routes the get, and the answer names the key's replicas. Used by the
 * simulator's one-hop clients and by a node's gateway for {@code onehop=true} gets. Not thread-safe.
 */
public final class OneHopRouter {

    /** Weight of a new delay sample, as an EWMA. */
    private static final double ALPHA = 0.25;

    private final OneHopImage image;
    // Looked up by id only; pruned to the image's members when it outgrows the image.
    private final Map<Id, Double> delayNanos = new HashMap<>();
    private final AnswerArcs arcs = new AnswerArcs();

    /** @param capacity the most nodes the image keeps */
    public OneHopRouter(int capacity) {
        this.image = new OneHopImage(capacity);
    }

    /**
     * Where copies of a get for {@code key} go, first copy first: the key's replicas in the image, those with a
     * measured delay fastest first, then the others closest to the key first; {@code fallback} last unless it is one
     * of those replicas itself (alone when the image knows nobody).
     */
    public List<Contact> targets(Id key, int replicas, Contact fallback) {
        return targets(key, replicas, fallback, id -> -1);
    }

    /**
     * As {@link #targets(Id, int, Contact)}, taking the round trip from {@code otherRttNanos} (negative: unknown)
     * for a replica this router has not measured itself: a node's gateway knows its neighbours' RTTs.
     */
    public List<Contact> targets(Id key, int replicas, Contact fallback, ToLongFunction<Id> otherRttNanos) {
        List<Contact> known = replicas(key, replicas, otherRttNanos);
        if (!known.contains(fallback)) {
            known.add(fallback);
        }
        return known;
    }

    /**
     * The key's replicas in the image, in the order copies go to them: those with a known delay fastest first, then
     * the others closest to the key first; those that forwarded a get for a key at least as far out on that side are
     * left out (see {@link AnswerArcs}), as a copy sent there would take a hop more. Empty when the image knows nobody
     * (or only replicas that would forward): a client with a fallback of its own (gateways it was configured with,
     * which have no id) routes the get there.
     */
    public List<Contact> replicas(Id key, int replicas, ToLongFunction<Id> otherRttNanos) {
        List<Contact> near = image.closest(key, replicas);
        Map<Id, Double> delay = new HashMap<>();
        List<Contact> known = new ArrayList<>();
        List<Contact> unknown = new ArrayList<>();
        for (Contact c : near) {
            if (arcs.declines(c.id(), key)) {
                continue;
            }
            Double d = expectedDelayNanos(c.id(), otherRttNanos);
            if (d == null) {
                unknown.add(c);
            } else {
                delay.put(c.id(), d);
                known.add(c);
            }
        }
        known.sort((a, b) -> Double.compare(delay.get(a.id()), delay.get(b.id())));
        known.addAll(unknown);
        return known;
    }

    /**
     * A hedge waits this many times the round trip expected to the first target: on the simulator's OpenDHT workload
     * 1.2, 1.5 and 2 gave one-hop p99s within each other's spread, 1.2 the lowest on average (docs/history.md,
     * "One-hop hedges").
     */
    static final double HEDGE_RTTS = 1.2;
    /** Added to the hedge wait so that a replica on the client's own host is not hedged on scheduling noise. */
    static final long HEDGE_SLACK_NANOS = 5_000_000L;

    /** Hedge copies a one-hop get sends at most: to its second target, then to its third. */
    public static final int HEDGES = GetOptions.ONE_HOP_HEDGES;

    /**
     * The hedge waits of a hedged one-hop get to {@code targets} (see {@link GetRace}): hedge copy i goes to target
     * i + 1 when target i has had {@link #hedgeAfterNanos} with no good answer. The second hedge is for the gets whose
     * first two targets are both slow (one in twenty-five when one replica in five is slow). One wait, the end-to-end
     * one, when only one target is known.
     */
    public long[] hedgeWaitsNanos(List<Contact> targets, long endToEndNanos, ToLongFunction<Id> otherRttNanos) {
        long[] waits = new long[Math.max(1, Math.min(HEDGES, targets.size() - 1))];
        for (int i = 0; i < waits.length; i++) {
            waits[i] = i < targets.size() ? hedgeAfterNanos(targets.get(i), endToEndNanos, otherRttNanos)
                    : endToEndNanos;
        }
        return waits;
    }

    /**
     * When a one-hop race whose first copy goes to {@code first} should send its hedge: {@value #HEDGE_RTTS} times
     * the round trip expected to {@code first} plus 5 ms, and never later than {@code endToEndNanos} (the end-to-end
     * threshold of recent gets, which alone stands when the delay to {@code first} is unknown). A wait per target is
     * what makes one-hop hedging work: a client near a replica hears from it in a few milliseconds and one far away
     * in a few hundred, so no single end-to-end threshold is early for both.
     *
     * @param otherRttNanos as in {@link #targets(Id, int, Contact, ToLongFunction)}
     */
    public long hedgeAfterNanos(Contact first, long endToEndNanos, ToLongFunction<Id> otherRttNanos) {
        Double d = expectedDelayNanos(first.id(), otherRttNanos);
        return d == null ? endToEndNanos : Math.min(endToEndNanos, (long) (HEDGE_RTTS * d) + HEDGE_SLACK_NANOS);
    }

    /** The round trip to {@code id}: measured here, else {@code otherRttNanos}'s if it knows it, else null. */
    private Double expectedDelayNanos(Id id, ToLongFunction<Id> otherRttNanos) {
        Double d = delayNanos.get(id);
        if (d != null) {
            return d;
        }
        long other = otherRttNanos.applyAsLong(id);
        return other >= 0 ? (double) other : null;
    }

    /**
     * An answer to a copy sent to {@code target} after {@code nanos}: learn the holders it names, or forget the
     * target if it failed. Learns nothing of where the target answers; see
     * {@link #answered(Id, Contact, Message, long, boolean)}.
     *
     * @param direct whether {@code target} answered itself, without forwarding: only then is {@code nanos} the
     *               delay to it
     */
    public void answered(Contact target, Message reply, long nanos, boolean direct) {
        answered(null, target, reply, nanos, direct);
    }

    /**
     * An answer to a copy of a get for {@code key} sent to {@code target} after {@code nanos}: learn the holders it
     * names, or forget the target if it failed; and learn whether the target answers gets for keys there or forwards
     * them (see {@link AnswerArcs}), so that later copies go to replicas that answer themselves.
     *
     * @param key    the get's key, or null to learn nothing of where the target answers
     * @param direct whether {@code target} answered itself, without forwarding: only then is {@code nanos} the
     *               delay to it
     */
    public void answered(Id key, Contact target, Message reply, long nanos, boolean direct) {
        arcs.tick();
        // A quorum get's PARTIAL is the target's answer too: it is the other replicas that did not all answer.
        if (reply instanceof GetReply g && (g.status() == Status.OK || g.status() == Status.PARTIAL)) {
            image.learn(g.holders());
            if (direct) {
                measured(target, nanos);
            }
            if (key != null && direct) {
                arcs.answered(target.id(), key);
            } else if (key != null) {
                arcs.declined(target.id(), key);
            }
        } else {
            forget(target);
        }
        if (delayNanos.size() > 2 * Math.max(1, image.size())) {
            delayNanos.keySet().removeIf(id -> !image.contains(id));
        }
        if (arcs.size() > 2 * Math.max(1, image.size())) {
            arcs.retain(image::contains);
        }
    }

    /**
     * Drops {@code node} from the image and its delay: it did not answer. Where the others answer is learned again:
     * a node gone widens the arcs its neighbours cover.
     */
    public void forget(Contact node) {
        image.forget(node.id());
        delayNanos.remove(node.id());
        arcs.clear();
    }

    /** A round trip to {@code node} measured some other way (a probe), service at the node included. */
    public void measured(Contact node, long nanos) {
        delayNanos.merge(node.id(), (double) nanos, (old, now) -> old + ALPHA * (now - old));
    }

    /** Whether a delay to {@code id} is known. */
    public boolean knowsDelayTo(Id id) {
        return delayNanos.containsKey(id);
    }

    public OneHopImage image() {
        return image;
    }
}
