package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The routed requests (puts, gets, removes; {@link Routed}) and their replies, which the serving node sends
 * straight to the request's origin; every hop answers its sender with a {@code HopAck}.
 */
public final class RequestMessages {

    private RequestMessages() {
    }

    /** A request routed toward a key, hop by hop. */
    public interface Routed {
        Id key();

        /** The gateway that started the request and waits for the reply. */
        Contact origin();

        /** The request id at the origin, echoed by the final reply. */
        long originRequestId();

        /** Overlay hops taken so far. */
        int hops();

        /** A copy one hop further along. */
        Routed nextHop();
    }

    /**
     * A put routed to the key's root, which stores it on the k closest nodes. {@code binding} is
     * {@link SecretBinding}'s {@code SHA-256(secret ‖ key ‖ valueHash)}, or empty for a value nobody can remove; the
     * secret itself never travels with a put. {@code expiresAtMillis} is the value's absolute expiry, set once by the
     * gateway's expiry clock ({@code ttlSeconds} from the moment the gateway took the put): a put delivered twice, by
     * a hop that re-routed it past a late next hop while the late one still passed it on, must not live longer the
     * second time. The root keeps it within {@code ttlSeconds} + 2 S of its own clock, so a gateway whose clock runs
     * ahead cannot stretch a value further than the root's own clock would.
     *
     * <p>An owned value carries its owner's {@code stamp} (null: unowned), whose signed expiry is its
     * {@code expiresAtMillis}; it has no binding and no TTL of its own (0), and may carry a {@code condition} that
     * the root checks (protocol version 8); with an empty value it is the owner's remove.
     *
     * <p>{@code originProof} (protocol 17; null: none) is the origin's public key and its signature over what the
     * put carries ({@code PutOrigins}), by which the key's root knows whom to count the put against, whoever passed
     * it on.
     */
    public record PutRequest(Id key, Bytes value, int ttlSeconds, long expiresAtMillis, Bytes binding, Contact origin,
                             long originRequestId, int hops, OwnerStamp stamp, PutCondition condition,
                             IdProof originProof) implements Message, Routed {
        /** An unowned put, unsigned. */
        public PutRequest(Id key, Bytes value, int ttlSeconds, long expiresAtMillis, Bytes binding, Contact origin,
                          long originRequestId, int hops) {
            this(key, value, ttlSeconds, expiresAtMillis, binding, origin, originRequestId, hops, null,
                    PutCondition.NONE, null);
        }

        public MessageType type() {
            return MessageType.PUT_REQUEST;
        }

        /** This put with {@code ttl} seconds left (a gateway's second try). */
        public PutRequest withTtlSeconds(int ttl) {
            return new PutRequest(key, value, ttl, expiresAtMillis, binding, origin, originRequestId, hops, stamp,
                    condition, originProof);
        }

        /** This put with {@code proof} as its origin's (none: null). */
        public PutRequest withOriginProof(IdProof proof) {
            return new PutRequest(key, value, ttlSeconds, expiresAtMillis, binding, origin, originRequestId, hops,
                    stamp, condition, proof);
        }

        /** This put signed by {@code key}, its origin's, for {@code namespace} ({@code PutOrigins}). */
        public PutRequest signedBy(NodeKey key, String namespace) {
            return PutOrigins.signed(key, namespace, this);
        }

        /** Whether this put carries its origin's valid signature for {@code namespace} ({@code PutOrigins}). */
        public boolean originProven(String namespace) {
            return PutOrigins.proven(namespace, this);
        }

        public PutRequest nextHop() {
            return new PutRequest(key, value, ttlSeconds, expiresAtMillis, binding, origin, originRequestId, hops + 1,
                    stamp, condition, originProof);
        }
    }

    /**
     * A get routed toward the key; answered by the first replica on the path. {@code wantHolders} asks the answering
     * replica to name the key's replicas in its reply (a one-hop client's image correction); {@code cost} is what
     * the get has cost so far, each forwarder adding its own messages before it sends. {@code readQuorum} 0: the
     * answering replica answers from its own store; R &gt; 0 ({@link Consistency#QUORUM}, R resolved by the gateway):
     * the first replica reached reads R replicas of the key, itself included, answers with their merge and repairs
     * the replicas that lacked a record. {@code filter}: the values the get wants (protocol version 9).
     */
    public record GetRequest(Id key, RoutingMode routing, int maxValues, Bytes placemark, Contact origin,
                             long originRequestId, int hops, boolean wantHolders, Cost cost, int readQuorum,
                             ValueFilter filter) implements Message, Routed {
        /** A get of every value of the key. */
        public GetRequest(Id key, RoutingMode routing, int maxValues, Bytes placemark, Contact origin,
                          long originRequestId, int hops, boolean wantHolders, Cost cost, int readQuorum) {
            this(key, routing, maxValues, placemark, origin, originRequestId, hops, wantHolders, cost, readQuorum,
                    ValueFilter.NONE);
        }

        /** A get routed by {@link RoutingMode#DEFAULT}, not asking for holders, nothing spent yet. */
        public GetRequest(Id key, int maxValues, Bytes placemark, Contact origin, long originRequestId, int hops) {
            this(key, RoutingMode.DEFAULT, maxValues, placemark, origin, originRequestId, hops);
        }

        /** A get not asking for holders, nothing spent yet. */
        public GetRequest(Id key, RoutingMode routing, int maxValues, Bytes placemark, Contact origin,
                          long originRequestId, int hops) {
            this(key, routing, maxValues, placemark, origin, originRequestId, hops, false, Cost.ZERO);
        }

        /** A get answered by one replica ({@code readQuorum} 0). */
        public GetRequest(Id key, RoutingMode routing, int maxValues, Bytes placemark, Contact origin,
                          long originRequestId, int hops, boolean wantHolders, Cost cost) {
            this(key, routing, maxValues, placemark, origin, originRequestId, hops, wantHolders, cost, 0);
        }

        public MessageType type() {
            return MessageType.GET_REQUEST;
        }

        /** Whether the get reads a quorum of replicas ({@code readQuorum} &gt; 0). */
        public boolean quorum() {
            return readQuorum > 0;
        }

        public GetRequest nextHop() {
            return new GetRequest(key, routing, maxValues, placemark, origin, originRequestId, hops + 1,
                    wantHolders, cost, readQuorum, filter);
        }

        /** The same request with {@code more} added to its cost. */
        public GetRequest spent(Cost more) {
            return new GetRequest(key, routing, maxValues, placemark, origin, originRequestId, hops, wantHolders,
                    cost.plus(more), readQuorum, filter);
        }
    }

    /** A remove routed to the key's root, which asks every replica to check the secret. */
    public record RemoveRequest(Id key, Bytes valueHash, Bytes secret, int ttlSeconds, Contact origin,
                                long originRequestId, int hops) implements Message, Routed {
        public MessageType type() {
            return MessageType.REMOVE_REQUEST;
        }

        public RemoveRequest nextHop() {
            return new RemoveRequest(key, valueHash, secret, ttlSeconds, origin, originRequestId, hops + 1);
        }
    }

    /**
     * Result of a put: {@code replicas} is how many nodes acknowledged holding the value. {@code currentSeq}: when an
     * owned put is refused as {@link Status#CONFLICT} or {@link Status#PRECONDITION_FAILED}, the sequence the root
     * holds (unsigned), or null when it holds none; null otherwise.
     */
    public record PutReply(Status status, int replicas, String detail, Long currentSeq) implements Message {
        public PutReply(Status status, int replicas, String detail) {
            this(status, replicas, detail, null);
        }

        public MessageType type() {
            return MessageType.PUT_REPLY;
        }
    }

    /** One live value of a get, with how long it has left, and its owner's stamp (null: unowned). */
    public record ValueEntry(Bytes value, long ttlRemainingMillis, OwnerStamp stamp) {
        /** An unowned value. */
        public ValueEntry(Bytes value, long ttlRemainingMillis) {
            this(value, ttlRemainingMillis, null);
        }
    }

    /**
     * Result of a get: the live values in slot order ({@code StoredRecord.slot}); a non-empty {@code placemark} means
     * more values remain and is passed back to fetch the next page. {@code hops} is how many overlay hops the request took;
     * {@code cost} the messages and bytes the get caused that the nodes on its path could count (see {@link Cost});
     * {@code holders} the key's replicas as the answering node sees them, when the request asked for them;
     * {@code replicasRead} how many replicas' records a quorum get merged (0 for a get answered by one replica). A
     * quorum get that reached fewer than R replicas answers {@link Status#PARTIAL} with the merge of those it reached.
     */
    public record GetReply(Status status, List<ValueEntry> values, Bytes placemark, int hops, String detail,
                           Cost cost, List<Contact> holders, int replicasRead) implements Message {
        public GetReply {
            values = List.copyOf(values);
            holders = List.copyOf(holders);
        }

        /** A reply without cost or holders. */
        public GetReply(Status status, List<ValueEntry> values, Bytes placemark, int hops, String detail) {
            this(status, values, placemark, hops, detail, Cost.ZERO, List.of(), 0);
        }

        /** A reply of a get answered by one replica. */
        public GetReply(Status status, List<ValueEntry> values, Bytes placemark, int hops, String detail,
                        Cost cost, List<Contact> holders) {
            this(status, values, placemark, hops, detail, cost, holders, 0);
        }

        public MessageType type() {
            return MessageType.GET_REPLY;
        }

        /** The same reply with another cost. */
        public GetReply withCost(Cost c) {
            return new GetReply(status, values, placemark, hops, detail, c, holders, replicasRead);
        }
    }

    public record RemoveReply(Status status, String detail) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_REPLY;
        }
    }

    /**
     * A request that could not be served at all.
     *
     * @param retryAfterMillis how long the client should wait before it asks again (0: no advice); set with
     *                         {@link Status#RATE_LIMITED} and {@link Status#QUOTA_EXCEEDED}
     */
    public record ErrorReply(Status status, String detail, int retryAfterMillis) implements Message {
        /** An error with no retry advice. */
        public ErrorReply(Status status, String detail) {
            this(status, detail, 0);
        }

        public MessageType type() {
            return MessageType.ERROR_REPLY;
        }
    }
}
