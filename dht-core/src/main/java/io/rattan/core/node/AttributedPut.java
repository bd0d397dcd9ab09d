package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.PutAck;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.net.Contact;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A gateway's put that is acknowledged only on W {@link PutAck}s it can attribute (issue 39, item 1): each sent to
 * it over a verified connection by the replica that durably stored the copy, naming the record the gateway sent
 * (key, value hash, expiry, binding). At most one ack counts per node, and one per host ({@link HostKeys}) but this
 * node's own (a loopback cluster's nodes share it): W acks come from W machines, so a key whose live replicas sit on
 * fewer than W other hosts cannot be acknowledged. Any node that saw the put can ack in its own name, so L liars on
 * its path or among its replicas leave an acknowledged put at least W − L copies. The root's {@link PutReply} OK counts for nothing here, since any hop could
 * have sent it; its other answers (a conflict, a refusal, a storage fault) are passed on, which a lying hop could
 * also do: it can deny a put, never fake one. Until the deadline the request stays registered under its id, so that
 * every ack reaches this handler. Short of W acks halfway to the deadline, the put goes once more, by a first hop drawn
 * at random (a liar on the path may have dropped it, or a hop lost it); the acks of both tries count.
 */
final class AttributedPut implements ReplyHandler {

    private final NodeContext ctx;
    private final PutRequest sent;
    private final Bytes valueHash;
    private final int needed;
    private final long deadlineNanos;
    private final Consumer<Message> answer;
    private final Runnable timedOut;
    private final Runnable shed;
    private final Runnable resend;
    private final Set<Id> ackers = new HashSet<>();
    private final Set<String> hosts = new HashSet<>();
    private boolean rootSaidOk;
    private boolean done;

    AttributedPut(NodeContext ctx, PutRequest sent, int needed, long deadlineNanos, Consumer<Message> answer,
                  Runnable timedOut, Runnable shed, Runnable resend) {
        this.ctx = ctx;
        this.sent = sent;
        this.valueHash = expectedHash(ctx.config(), sent);
        this.needed = needed;
        this.deadlineNanos = deadlineNanos;
        this.answer = answer;
        this.timedOut = timedOut;
        this.shed = shed;
        this.resend = resend;
    }

    /** Registers this put under {@code id} until its deadline, and plans its second try. */
    void start(long id) {
        expect(id);
        ctx.scheduler().schedule(Math.max(1, (deadlineNanos - ctx.now()) / 2), () -> {
            if (!done && !ctx.stopped()) {
                resend.run();
            }
        });
    }

    private void expect(long id) {
        ctx.outbox().expect(id, ctx.now(), Math.max(1, deadlineNanos - ctx.now()), true, this);
    }

    @Override
    public boolean takesPutAcks() {
        return true;
    }

    @Override
    public void onReply(Envelope reply) {
        Message m = reply.body();
        if (m instanceof PutAck ack) {
            count(reply.sender(), ack);
        } else if (m instanceof PutReply r && r.status() == Status.OK) {
            rootSaidOk = true;
        } else if (m instanceof PutReply || m instanceof ErrorReply) {
            finish(m);
            return;
        }
        // Anything else under this id (a stray reply a hop sent) ends nothing: the put stays registered.
        if (ackers.size() >= needed) {
            finish(new PutReply(Status.OK, ackers.size(), ""));
        } else {
            expect(sent.originRequestId());
        }
    }

    private void count(Contact from, PutAck ack) {
        if (from == null || !matches(ack)) {
            ctx.listener().putAckRefused();
            return;
        }
        // Keyed as the leaf set keys hosts (an IPv6 /64 is one host), so that one machine cannot count twice.
        String host = HostKeys.of(from.address().host());
        boolean ownHost = host.equals(HostKeys.of(ctx.self().address().host()));
        if (!ackers.contains(from.id()) && (ownHost || hosts.add(host))) {
            ackers.add(from.id());
        }
    }

    /**
     * The record the gateway sent. An unowned value's expiry is never lengthened; a root shortens it to its own clock
     * + TTL when this gateway's stamp is beyond that, by at most twice what settled clocks may disagree
     * ({@link ExpiryClock#SPREAD_BOUND_MILLIS}) if this gateway's clock is settled, by any amount if it is not (it
     * may run an hour ahead, its peers not yet heard: UnsettledGatewayExpiryTest).
     */
    private boolean matches(PutAck ack) {
        if (!ack.key().equals(sent.key()) || !ack.valueHash().equals(valueHash)) {
            return false;
        }
        if (sent.stamp() != null) {
            return ack.expiresAtMillis() == sent.expiresAtMillis() && ack.binding().isEmpty();
        }
        return ack.binding().equals(sent.binding()) && ack.expiresAtMillis() <= sent.expiresAtMillis()
                && (!ctx.clock().settled()
                        || ack.expiresAtMillis() >= sent.expiresAtMillis() - 2 * ExpiryClock.SPREAD_BOUND_MILLIS);
    }

    @Override
    public void onTimeout() {
        if (ackers.isEmpty() && !rootSaidOk) {
            done = true;
            timedOut.run();
            return;
        }
        finish(new PutReply(Status.UNAVAILABLE, ackers.size(), "only " + ackers.size() + " of " + needed
                + " replicas acknowledged the put to this gateway" + (rootSaidOk ? " (its root answered OK)" : "")));
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
}
