package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.RequestIds;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.net.Contact;
import java.util.random.RandomGenerator;

/**
 * Everything that leaves the node and every answer it waits for: sends, requests with their timeouts, and the
 * matching of replies by request id and, for a request to one peer, by that peer as the sender (an answer's round
 * trip is an RTT sample of the peer asked). Owned by the node's event loop.
 */
final class Outbox {

    /** Takes a round-trip sample of a peer that answered one of our requests. */
    interface RttSampler {
        void sample(Id peer, long rttNanos);
    }

    static final int PENDING_MAX = 65_536;

    private final NodeContext ctx;
    private final Transport transport;
    private final RttSampler rtt;
    private final PendingRequests pending;
    // Only measures messages, for the cost a get reports.
    private final MessageCodec codec = new MessageCodec();
    private final RandomGenerator ids;
    // Null for the default namespace; else what a request or a one-way message sent through this outbox is wrapped in.
    private final String namespace;

    Outbox(NodeContext ctx, Transport transport, RequestIds requestIds, RttSampler rtt) {
        this.ctx = ctx;
        this.transport = transport;
        this.rtt = rtt;
        this.pending = new PendingRequests(ctx.scheduler(), PENDING_MAX, () -> ctx.listener().requestShed());
        this.ids = requestIds.stream(ctx.random());
        this.namespace = null;
    }

    private Outbox(Outbox base, String namespace) {
        this.ctx = base.ctx;
        this.transport = base.transport;
        this.rtt = base.rtt;
        this.pending = base.pending;
        this.ids = base.ids;
        this.namespace = namespace;
    }

    /**
     * This outbox for the jobs of {@code namespace}: the same requests and ids, but what they send (replies aside,
     * which are matched by id) goes as an {@link InNamespace}, to the same namespace's jobs at the peer.
     */
    Outbox inNamespace(String namespace) {
        return new Outbox(this, namespace);
    }

    /**
     * A fresh request id, for requests whose answer may come from any node (joins, client requests). Drawn from the
     * node's random source (a CSPRNG in the real node, seeded in the virtual world), so that nobody can guess the id
     * of a request in flight and forge its answer; a random id also keeps a restarted node's new requests apart
     * from late replies to its previous run's.
     */
    long nextRequestId() {
        long id;
        do {
            id = ids.nextLong();
        } while (id == 0 || pending.isOutstanding(id));
        return id;
    }

    void send(Address to, long requestId, Message body) {
        ctx.listener().messageSent(body.type());
        Message out = namespace == null || isReply(body.type()) ? body : new InNamespace(namespace, body);
        transport.send(to, new Envelope(ctx.self(), requestId, out));
    }

    /**
     * Sends a request to a peer; the handler sees the reply (an RTT sample is taken), the timeout, or, when
     * {@link #PENDING_MAX} requests are outstanding and this is the oldest, that it was shed.
     */
    void request(Contact to, Message body, long timeoutNanos, ReplyHandler handler) {
        long id = nextRequestId();
        pending.register(id, to.id(), ctx.now(), timeoutNanos, false, handler);
        send(to.address(), id, body);
    }

    /**
     * Waits for an answer to request {@code id} from any node (or for its timeout, or its shedding when it is the
     * oldest of {@link #PENDING_MAX} outstanding). {@code clientFacing} ones are answered with their timeout when the
     * node stops.
     */
    void expect(long id, long sentAtNanos, long timeoutNanos, boolean clientFacing, ReplyHandler handler) {
        pending.register(id, null, sentAtNanos, timeoutNanos, clientFacing, handler);
    }

    /** A reply arrived (or was produced here): completes the request it answers. */
    void onReply(Envelope e) {
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
            rtt.sample(p.peer(), ctx.now() - p.sentAtNanos());
        }
    }

    /** Sends the final answer of a routed request to the gateway that started it (possibly this node). */
    void replyToOrigin(Routed m, Message reply) {
        if (m.origin().id().equals(ctx.self().id())) {
            onReply(new Envelope(ctx.self(), m.originRequestId(), reply));
        } else {
            send(m.origin().address(), m.originRequestId(), reply);
        }
    }

    /**
     * Sends a replica's ack ({@link PutAck} of a put's copy, {@link RemoveAck} of a tombstone) straight to the gateway
     * waiting on it (possibly this node).
     */
    void ackToGateway(Contact gateway, long requestId, Message ack) {
        if (gateway.id().equals(ctx.self().id())) {
            onReply(new Envelope(ctx.self(), requestId, ack));
        } else {
            send(gateway.address(), requestId, ack);
        }
    }

    /** Whether {@code type} answers a request (matched by its id, in any namespace) rather than asks or tells. */
    static boolean isReply(MessageType type) {
        return switch (type) {
            case PONG, HOP_ACK, STORE_ACK, PUT_ACK, REMOVE_ACK, WATCH_ACK, LEAF_EXCHANGE_REPLY, REMOVE_REPLICA_REPLY,
                 DIGEST_WANT, RANGE_DIGEST_REPLY, PUT_REPLY, GET_REPLY, REMOVE_REPLY, ITERATIVE_GET_REPLY,
                 REPLICA_READ_REPLY, ERROR_REPLY -> true;
            default -> false;
        };
    }

    /** True when our own request table is full: a timeout then is our failure, not the peer's. */
    boolean isFull() {
        return pending.size() >= PENDING_MAX - 1;
    }

    /** Cancels every outstanding request; those of clients see their timeout. */
    void failAll() {
        for (PendingRequests.Pending p : pending.drain()) {
            if (p.clientFacing()) {
                p.handler().onTimeout();
            }
        }
    }

    /** One message from {@code sender} as it goes on the wire. */
    Cost sizeOf(Contact sender, Message body) {
        return Cost.message(codec.encodedSize(new Envelope(sender, 0, body)));
    }
}
