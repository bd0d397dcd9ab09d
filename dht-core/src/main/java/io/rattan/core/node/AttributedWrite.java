package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.net.Contact;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A gateway's put or remove that is acknowledged only on W acks it can attribute (issue 39, item 1): each sent to it
 * over a verified connection by the replica that durably stored the put's copy ({@link PutAck}, naming the record the
 * gateway sent: key, value hash, expiry, binding) or the remove's tombstone ({@link RemoveAck}: key and value hash).
 * At most one ack counts per node, and one per host ({@link HostKeys}) but this node's own (a loopback cluster's
 * nodes share it): W acks come from W machines, so a key whose live replicas sit on fewer than W other hosts cannot
 * be acknowledged. Any node that saw the write can ack in its own name, so L liars on its path or among its replicas
 * leave an acknowledged write on at least W − L replicas. The root's OK counts for nothing here, since any hop could
 * have sent it; its other answers (a conflict, a refusal, NOT_FOUND, a storage fault) are passed on, which a lying
 * hop could also do: it can deny a write, never fake one. Until the deadline the request stays registered under its
 * id, so that every ack reaches this handler. Not answered halfway to the deadline, the write goes once more, by a
 * first hop drawn at random (a liar on the path may have dropped it, or a hop lost it, or a remove's root's OK was
 * lost); the acks of both tries count.
 */
final class AttributedWrite implements ReplyHandler {

    /** What a write's acks must name, and its answers. */
    private interface Kind {
        /** Whether {@code ack} is this write's kind of ack and names what was sent. */
        boolean matches(Message ack);

        /** The type of the root's answer to this write (an error reply answers it too). */
        MessageType answerType();

        Message answer(Status status, int acks, String detail);

        void refused(NodeListener listener);

        /**
         * Whether W acks answer OK only once the root's OK came too (or at the deadline): a remove's root answers once
         * every replica did, so that its client's OK still means every replica it reached holds the tombstone.
         */
        boolean waitsForRoot();

        String noun();
    }

    private final NodeContext ctx;
    private final Kind kind;
    private final int needed;
    private final long deadlineNanos;
    private final Consumer<Message> answer;
    private final Runnable timedOut;
    private final Runnable shed;
    private final Runnable resend;
    private final Set<Id> ackers = new HashSet<>();
    private final Set<String> hosts = new HashSet<>();
    private long id;
    private boolean rootSaidOk;
    private boolean done;

    private AttributedWrite(NodeContext ctx, Kind kind, int needed, long deadlineNanos, Consumer<Message> answer,
                            Runnable timedOut, Runnable shed, Runnable resend) {
        this.ctx = ctx;
        this.kind = kind;
        this.needed = needed;
        this.deadlineNanos = deadlineNanos;
        this.answer = answer;
        this.timedOut = timedOut;
        this.shed = shed;
        this.resend = resend;
    }

    /** A put acknowledged on W {@link PutAck}s naming what it carries. */
    static AttributedWrite put(NodeContext ctx, PutRequest sent, int needed, long deadlineNanos,
                               Consumer<Message> answer, Runnable timedOut, Runnable shed, Runnable resend) {
        return new AttributedWrite(ctx, new PutKind(ctx, sent, expectedHash(ctx.config(), sent)), needed,
                deadlineNanos, answer, timedOut, shed, resend);
    }

    /** A remove acknowledged on W {@link RemoveAck}s: W replicas hold its tombstone. */
    static AttributedWrite remove(NodeContext ctx, RemoveRequest sent, int needed, long deadlineNanos,
                                  Consumer<Message> answer, Runnable timedOut, Runnable shed, Runnable resend) {
        return new AttributedWrite(ctx, new RemoveKind(sent), needed, deadlineNanos, answer, timedOut, shed, resend);
    }

    /** Registers this write under {@code id} until its deadline, and plans its second try. */
    void start(long requestId) {
        id = requestId;
        expect();
        ctx.scheduler().schedule(Math.max(1, (deadlineNanos - ctx.now()) / 2), () -> {
            if (!done && !ctx.stopped()) {
                resend.run();
            }
        });
    }

    private void expect() {
        ctx.outbox().expect(id, ctx.now(), Math.max(1, deadlineNanos - ctx.now()), true, this);
    }

    @Override
    public boolean takesAcks() {
        return true;
    }

    @Override
    public void onReply(Envelope reply) {
        Message m = reply.body();
        if (m instanceof PutAck || m instanceof RemoveAck) {
            count(reply.sender(), m);
        } else if (isAnswer(m) && ClientRequests.statusOf(m) == Status.OK) {
            rootSaidOk = true;
        } else if (isAnswer(m)) {
            // W replicas' own word outranks any other answer, which a lying hop could send.
            finish(ackers.size() >= needed ? kind.answer(Status.OK, ackers.size(), "") : m);
            return;
        }
        // Anything else under this id (a stray reply a hop sent) ends nothing: the write stays registered.
        if (ackers.size() >= needed && (rootSaidOk || !kind.waitsForRoot())) {
            finish(kind.answer(Status.OK, ackers.size(), ""));
        } else {
            expect();
        }
    }

    private boolean isAnswer(Message m) {
        return m.type() == kind.answerType() || m instanceof ErrorReply;
    }

    private void count(Contact from, Message ack) {
        if (from == null || !kind.matches(ack)) {
            kind.refused(ctx.listener());
            return;
        }
        // Keyed as the leaf set keys hosts (an IPv6 /64 is one host), so that one machine cannot count twice.
        String host = HostKeys.of(from.address().host());
        boolean ownHost = host.equals(HostKeys.of(ctx.self().address().host()));
        if (!ackers.contains(from.id()) && (ownHost || hosts.add(host))) {
            ackers.add(from.id());
        }
    }

    @Override
    public void onTimeout() {
        if (ackers.isEmpty() && !rootSaidOk) {
            done = true;
            timedOut.run();
            return;
        }
        if (ackers.size() >= needed) {
            // A remove's root that never said OK (it died, or lied): W replicas' tombstones are the answer.
            finish(kind.answer(Status.OK, ackers.size(), ""));
            return;
        }
        finish(kind.answer(Status.UNAVAILABLE, ackers.size(), "only " + ackers.size() + " of " + needed
                + " replicas acknowledged the " + kind.noun() + " to this gateway"
                + (rootSaidOk ? " (its root answered OK)" : "")));
    }

    @Override
    public void onShed() {
        done = true;
        shed.run();
    }

    private void finish(Message m) {
        done = true;
        answer.accept(m);
    }

    /** The value hash a replica stores a put under, as its root makes the record ({@link LocalReplica#recordOf}). */
    static Bytes expectedHash(NodeConfig config, PutRequest p) {
        if (p.stamp() != null) {
            return OwnedSlot.of(config.namespace(), p.stamp().owner(), p.stamp().valueId());
        }
        return p.value().sha256();
    }

    /**
     * A put's acks name the record the gateway sent. An unowned value's expiry is never lengthened; a root shortens it
     * to its own clock + TTL when this gateway's stamp is beyond that, by at most twice what settled clocks may
     * disagree ({@link ExpiryClock#SPREAD_BOUND_MILLIS}) if this gateway's clock is settled, by any amount if it is
     * not (it may run an hour ahead, its peers not yet heard: UnsettledGatewayExpiryTest).
     */
    private record PutKind(NodeContext ctx, PutRequest sent, Bytes valueHash) implements Kind {
        @Override
        public boolean matches(Message m) {
            if (!(m instanceof PutAck ack) || !ack.key().equals(sent.key()) || !ack.valueHash().equals(valueHash)) {
                return false;
            }
            if (sent.stamp() != null) {
                return ack.expiresAtMillis() == sent.expiresAtMillis() && ack.binding().isEmpty();
            }
            return ack.binding().equals(sent.binding()) && ack.expiresAtMillis() <= sent.expiresAtMillis()
                    && (!ctx.clock().settled() || ack.expiresAtMillis()
                            >= sent.expiresAtMillis() - 2 * ExpiryClock.SPREAD_BOUND_MILLIS);
        }

        @Override
        public MessageType answerType() {
            return MessageType.PUT_REPLY;
        }

        @Override
        public Message answer(Status status, int acks, String detail) {
            return new PutReply(status, acks, detail);
        }

        @Override
        public void refused(NodeListener listener) {
            listener.putAckRefused();
        }

        @Override
        public String noun() {
            return "put";
        }

        @Override
        public boolean waitsForRoot() {
            return false;
        }
    }

    /** A remove's acks name its key and value: its tombstone holds the remove's secret, which they never carry. */
    private record RemoveKind(RemoveRequest sent) implements Kind {
        @Override
        public boolean matches(Message m) {
            return m instanceof RemoveAck ack && ack.key().equals(sent.key())
                    && ack.valueHash().equals(sent.valueHash());
        }

        @Override
        public MessageType answerType() {
            return MessageType.REMOVE_REPLY;
        }

        @Override
        public Message answer(Status status, int acks, String detail) {
            return new RemoveReply(status, detail);
        }

        @Override
        public void refused(NodeListener listener) {
            listener.removeAckRefused();
        }

        @Override
        public String noun() {
            return "remove";
        }

        @Override
        public boolean waitsForRoot() {
            return true;
        }
    }
}
