package io.rattan.core.node;

import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Scheduler;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Outstanding requests by request id, each with its timeout on the node's scheduler. Replies are matched here in
 * core so that the real node and the simulator time out the same way. Bounded: past {@code max} outstanding
 * requests a new one fails at once (its handler times out). Owned by the node's event loop.
 */
final class PendingRequests {

    /** A request in flight. {@code peer} is null when the reply may come from any node (routed requests). */
    record Pending(long id, Id peer, long sentAtNanos, ReplyHandler handler, boolean clientFacing,
                   Cancellable timer) {
    }

    private final Scheduler scheduler;
    private final int max;
    private final Map<Long, Pending> byId = new LinkedHashMap<>();
    /**
     * Requests that timed out, remembered (boundedly) so that a late reply still gives an RTT sample: without it a
     * peer that turned slow would only ever be measured by the requests that beat its old timeout.
     */
    private final Map<Long, Pending> expired = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Pending> eldest) {
            return size() > EXPIRED_MAX;
        }
    };
    private static final int EXPIRED_MAX = 4096;

    PendingRequests(Scheduler scheduler, int max) {
        this.scheduler = scheduler;
        this.max = max;
    }

    /** Registers request {@code id}; returns false (and registers nothing) when the table is full. */
    boolean register(long id, Id peer, long nowNanos, long timeoutNanos, boolean clientFacing,
                     ReplyHandler handler) {
        if (byId.size() >= max) {
            return false;
        }
        Cancellable timer = scheduler.schedule(timeoutNanos, () -> {
            Pending p = byId.remove(id);
            if (p != null) {
                if (p.peer() != null) {
                    expired.put(id, p);
                }
                p.handler().onTimeout();
            }
        });
        byId.put(id, new Pending(id, peer, nowNanos, handler, clientFacing, timer));
        return true;
    }

    /**
     * Removes and returns the request a reply answers, or null when it is unknown, already done, or was asked of one
     * peer and the reply names another sender (a forgery: the request stays outstanding).
     */
    Pending complete(Envelope reply) {
        Pending p = byId.get(reply.requestId());
        if (p == null || !fromExpectedSender(p, reply)) {
            return null;
        }
        byId.remove(reply.requestId());
        p.timer().cancel();
        return p;
    }

    /** Removes and returns a request that had timed out and is now answered late by the peer asked, or null. */
    Pending completeLate(Envelope reply) {
        Pending p = expired.get(reply.requestId());
        if (p == null || !fromExpectedSender(p, reply)) {
            return null;
        }
        return expired.remove(reply.requestId());
    }

    boolean isOutstanding(long id) {
        return byId.containsKey(id);
    }

    private static boolean fromExpectedSender(Pending p, Envelope reply) {
        return p.peer() == null || (reply.sender() != null && p.peer().equals(reply.sender().id()));
    }

    /** Cancels every timer and returns what was outstanding, in registration order. */
    List<Pending> drain() {
        List<Pending> all = new ArrayList<>(byId.values());
        byId.clear();
        expired.clear();
        for (Pending p : all) {
            p.timer().cancel();
        }
        return all;
    }

    int size() {
        return byId.size();
    }
}
