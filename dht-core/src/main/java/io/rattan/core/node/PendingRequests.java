package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Scheduler;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Outstanding requests by request id, each with its timeout on the node's scheduler. Replies are matched here in
 * core so that the real node and the simulator time out the same way. Bounded: at {@code max} outstanding requests a
 * new one sheds the <em>oldest</em> (overload drops old work first: the oldest is the one with the least time left,
 * and a flood of new requests must not lock out the ones behind it forever); the shed request's handler hears
 * {@link ReplyHandler#onShed}, on a task of its own, and {@code onShed} here counts it. Owned by the node's event
 * loop.
 */
final class PendingRequests {

    /** A request in flight. {@code peer} is null when the reply may come from any node (routed requests). */
    record Pending(long id, Id peer, long sentAtNanos, ReplyHandler handler, boolean clientFacing,
                   Cancellable timer) {
    }

    private final Scheduler scheduler;
    private final int max;
    private final Runnable onShed;
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

    /**
     * @param max    most requests outstanding at once
     * @param onShed called once for each request shed to stay within {@code max} (a counter)
     */
    PendingRequests(Scheduler scheduler, int max, Runnable onShed) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be positive, got " + max);
        }
        this.scheduler = scheduler;
        this.max = max;
        this.onShed = onShed;
    }

    /** Registers request {@code id}; when {@code max} are outstanding, the oldest is shed first. */
    void register(long id, Id peer, long nowNanos, long timeoutNanos, boolean clientFacing, ReplyHandler handler) {
        while (byId.size() >= max) {
            shedOldest();
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
    }

    /**
     * Drops the request registered first. Its handler runs on a task of its own, never inside {@link #register}: a
     * handler that sends another request (a routed hop tries the next neighbour) must not re-enter the table it is
     * being shed from.
     */
    private void shedOldest() {
        Iterator<Pending> first = byId.values().iterator();
        Pending oldest = first.next();
        first.remove();
        oldest.timer().cancel();
        onShed.run();
        scheduler.execute(() -> oldest.handler().onShed());
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
        MessageType type = reply.body().type();
        if ((type == MessageType.PUT_ACK || type == MessageType.REMOVE_ACK) && !p.handler().takesAcks()) {
            return false;
        }
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
