package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Call.ReplyMapper}s of the client's operations: each turns a gateway's reply into the client's result,
 * or throws the {@link RattanException} the reply stands for, so that {@link Call} retries a transient status like a
 * lost connection; the exception's status and message are what the caller finally sees. Kept apart from
 * {@link RattanClient} so that the wire's replies and statuses are read in one place, by the plain calls and by
 * {@link GetRacer} alike.
 */
final class Replies {

    private Replies() {
    }

    /** A put's reply: the stored value's hash and replica count. */
    static PutResult put(Message reply, Bytes valueHash) {
        if (reply.type() != MessageType.PUT_REPLY) {
            throw notAnswer(Op.PUT, reply);
        }
        PutReply r = (PutReply) reply;
        if (r.status() == Status.OK) {
            return new PutResult(valueHash, r.replicas());
        }
        throw failure(Op.PUT, r.status(), r.detail());
    }

    /** An owner's remove's reply: how many replicas held the tombstone when it was acknowledged. */
    static Integer removeOwned(Message reply) {
        if (reply.type() != MessageType.PUT_REPLY) {
            throw notAnswer(Op.REMOVE, reply);
        }
        PutReply r = (PutReply) reply;
        if (r.status() == Status.OK) {
            return r.replicas();
        }
        throw failure(Op.REMOVE, r.status(), r.detail());
    }

    /** A compare-and-swap's reply: swapped, or not with the sequence held (409 and 412 are answers, not failures). */
    static SwapResult swap(Message reply, long newSeq) {
        if (reply.type() != MessageType.PUT_REPLY) {
            throw notAnswer(Op.PUT, reply);
        }
        PutReply r = (PutReply) reply;
        if (r.status() == Status.OK) {
            return new SwapResult(true, newSeq, r.replicas());
        }
        if (r.status() == Status.PRECONDITION_FAILED || r.status() == Status.CONFLICT) {
            return new SwapResult(false, r.currentSeq(), 0);
        }
        throw failure(Op.PUT, r.status(), r.detail());
    }

    /** One page of a get: its values, or an empty page when no live value is under the key. */
    static GetResult getPage(Message reply) {
        if (reply.type() != MessageType.GET_REPLY) {
            throw notAnswer(Op.GET, reply);
        }
        GetReply r = (GetReply) reply;
        // A quorum get that reached fewer than R replicas still answers, flagged partial.
        if (r.status() == Status.OK || r.status() == Status.PARTIAL) {
            List<GetResult.Value> values = new ArrayList<>(r.values().size());
            for (ValueEntry e : r.values()) {
                values.add(new GetResult.Value(e.value(), e.value().sha256(),
                        Duration.ofMillis(e.ttlRemainingMillis()), e.stamp()));
            }
            return new GetResult(values, r.hops(), 1, r.placemark(), r.cost(), r.status() == Status.PARTIAL);
        }
        if (r.status() == Status.NOT_FOUND) {
            // No live value under the key: the same answer as an empty page.
            return new GetResult(List.of(), r.hops(), 1, Bytes.EMPTY, r.cost());
        }
        throw failure(Op.GET, r.status(), r.detail());
    }

    /**
     * A remove's reply: true when the value was removed, false when no replica held it. In a namespace
     * ({@code inNamespace}) a gateway's {@code NOT_FOUND} error names the namespace, not the value: it fails.
     */
    static Boolean remove(Message reply, boolean inNamespace) {
        Status status;
        String detail;
        switch (reply.type()) {
            case REMOVE_REPLY:
                status = ((RemoveReply) reply).status();
                detail = ((RemoveReply) reply).detail();
                break;
            case ERROR_REPLY:
                ErrorReply error = (ErrorReply) reply;
                if (error.status() == Status.NOT_FOUND && !inNamespace) {
                    return Boolean.FALSE;
                }
                throw failure(Op.REMOVE, error);
            default:
                throw unexpected(Op.REMOVE, reply);
        }
        if (status == Status.OK) {
            return Boolean.TRUE;
        }
        if (status == Status.NOT_FOUND) {
            return Boolean.FALSE;
        }
        throw failure(Op.REMOVE, status, detail);
    }

    /** A ring page's reply: the page itself, else the failure it stands for. */
    static RingReply ring(Message reply) {
        if (reply instanceof RingReply r) {
            return r;
        }
        throw notAnswer(Op.RING, reply);
    }

    /** The failure a reply other than the operation's own answer stands for: its error, or a broken gateway. */
    private static RattanException notAnswer(Op op, Message reply) {
        return reply.type() == MessageType.ERROR_REPLY ? failure(op, (ErrorReply) reply) : unexpected(op, reply);
    }

    private static RattanException failure(Op op, ErrorReply error) {
        RattanException f = failure(op, error.status(), error.detail());
        if (error.retryAfterMillis() <= 0 || f.status() != error.status()) {
            return f;
        }
        return new RattanException(f.status(), f.getMessage(), null, error.retryAfterMillis());
    }

    private static RattanException failure(Op op, Status status, String detail) {
        String suffix = detail == null || detail.isEmpty() ? "" : ": " + detail;
        if (status == Status.OK) {
            // An error reply that claims success is a broken gateway; retry elsewhere.
            return new RattanException(Status.INTERNAL, op.tag() + ": the gateway sent an error reply with status OK"
                    + suffix);
        }
        return new RattanException(status, op.tag() + " failed: " + status + suffix);
    }

    private static RattanException unexpected(Op op, Message reply) {
        return new RattanException(Status.INTERNAL, op.tag() + ": the gateway answered with " + reply.type());
    }
}
