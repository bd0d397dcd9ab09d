package io.rattan.core.client;

import io.rattan.api.Id;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where on the ring each node of a one-hop image declines gets, learned from the gets it forwarded. A node answers a
 * get only for keys its own leaf set covers; the replicas an answer names are the answering node's view, and with a
 * small leaf set (two per side for three replicas) the replica at the edge of a key's replica set does not see far
 * enough past the key to count itself a replica, so it forwards every get sent to it for that key. Sending it the
 * first copy then costs a hop each time, and ranking by measured delay alone made the same key alternate between
 * one hop and two.
 *
 * <p>A node covers an arc around itself, from its farthest leaf one way to its farthest leaf the other. A key it
 * forwarded at distance d on one side (the nearer) means its arc ends before d on that side, so every key at d or
 * beyond on that side is declined too, until: the node answers a key there itself (its arc grew), the image forgets
 * a node (a neighbour gone widens the arcs next to it, so all are relearned), or {@link #EXPIRY_ANSWERS} answers
 * have passed (a replica that forwarded only because it had just joined and held nothing yet is asked again).
 * Not thread-safe.
 */
final class AnswerArcs {

    /**
     * Answers after which a declined arc is forgotten: a node wrongly written off costs its hops, one wrongly kept
     * costs one forward per expiry at most.
     */
    static final long EXPIRY_ANSWERS = 10_000;

    /** The nearest declined key's distance on each side (null: none known), and the answer count it dates from. */
    private record Arc(Id clockwise, Id counterClockwise, long since) {
    }

    private final Map<Id, Arc> arcs = new HashMap<>();
    private long answers;

    /** Counts an answer: the clock the arcs expire by. */
    void tick() {
        answers++;
    }

    /** {@code node} forwarded a get for {@code key} sent straight to it. */
    void declined(Id node, Id key) {
        Arc arc = live(node);
        Id cw = key.minus(node);
        Id ccw = node.minus(key);
        if (cw.compareTo(ccw) <= 0) {
            arc = new Arc(min(arc == null ? null : arc.clockwise(), cw), arc == null ? null : arc.counterClockwise(),
                    answers);
        } else {
            arc = new Arc(arc == null ? null : arc.clockwise(), min(arc == null ? null : arc.counterClockwise(), ccw),
                    answers);
        }
        arcs.put(node, arc);
    }

    /** {@code node} answered a get for {@code key} itself: it covers the key, whatever it declined before. */
    void answered(Id node, Id key) {
        Arc arc = live(node);
        if (arc == null || !declines(arc, node, key)) {
            return;
        }
        Id cw = key.minus(node);
        Arc widened = cw.compareTo(node.minus(key)) <= 0 ? new Arc(null, arc.counterClockwise(), arc.since())
                : new Arc(arc.clockwise(), null, arc.since());
        if (widened.clockwise() == null && widened.counterClockwise() == null) {
            arcs.remove(node);
        } else {
            arcs.put(node, widened);
        }
    }

    /** Whether {@code node} is expected to forward a get for {@code key} rather than answer it. */
    boolean declines(Id node, Id key) {
        Arc arc = live(node);
        return arc != null && declines(arc, node, key);
    }

    /** Forgets every arc: the ring changed. */
    void clear() {
        arcs.clear();
    }

    /** Drops the arcs of nodes that fail {@code keep}. */
    void retain(Predicate<Id> keep) {
        arcs.keySet().removeIf(keep.negate());
    }

    int size() {
        return arcs.size();
    }

    private Arc live(Id node) {
        Arc arc = arcs.get(node);
        if (arc != null && answers - arc.since() > EXPIRY_ANSWERS) {
            arcs.remove(node);
            return null;
        }
        return arc;
    }

    private static boolean declines(Arc arc, Id node, Id key) {
        Id cw = key.minus(node);
        Id ccw = node.minus(key);
        if (cw.compareTo(ccw) <= 0) {
            return arc.clockwise() != null && cw.compareTo(arc.clockwise()) >= 0;
        }
        return arc.counterClockwise() != null && ccw.compareTo(arc.counterClockwise()) >= 0;
    }

    private static Id min(Id a, Id b) {
        return a == null || b.compareTo(a) < 0 ? b : a;
    }
}
