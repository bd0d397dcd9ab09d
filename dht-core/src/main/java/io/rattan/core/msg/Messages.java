package io.rattan.core.msg;

import io.rattan.core.id.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.util.Bytes;
import java.util.List;

/**
 * The message records. Lists are copied to immutable lists; optional bytes are {@link Bytes#EMPTY} when absent.
 * Routed requests ({@link Routed}) travel hop by hop toward their key; every hop answers its sender with a
 * {@link HopAck}, and the node that serves the request replies straight to {@code origin}.
 */
public final class Messages {

    private Messages() {
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

    /** Liveness and RTT probe. */
    public record Ping() implements Message {
        public MessageType type() {
            return MessageType.PING;
        }
    }

    public record Pong() implements Message {
        public MessageType type() {
            return MessageType.PONG;
        }
    }

    /** A next hop's receipt of a routed request; lets the sender re-route at once when it does not come. */
    public record HopAck() implements Message {
        public MessageType type() {
            return MessageType.HOP_ACK;
        }
    }

    /** Routed toward the joiner's own id; every node on the path sends the joiner a {@link JoinInfo}. */
    public record JoinRequest(Contact joiner, long originRequestId, int hops) implements Message, Routed {
        public MessageType type() {
            return MessageType.JOIN_REQUEST;
        }

        public Id key() {
            return joiner.id();
        }

        public Contact origin() {
            return joiner;
        }

        public JoinRequest nextHop() {
            return new JoinRequest(joiner, originRequestId, hops + 1);
        }
    }

    /** Contacts a path node gives a joiner; {@code fromRoot} marks the last one, whose leaf set the joiner adopts. */
    public record JoinInfo(List<Contact> contacts, boolean fromRoot) implements Message {
        public JoinInfo {
            contacts = List.copyOf(contacts);
        }

        public MessageType type() {
            return MessageType.JOIN_INFO;
        }
    }

    /** Periodic leaf-set exchange (also a join announcement); answered with the receiver's leaf set. */
    public record LeafExchange(List<Contact> leafSet) implements Message {
        public LeafExchange {
            leafSet = List.copyOf(leafSet);
        }

        public MessageType type() {
            return MessageType.LEAF_EXCHANGE;
        }
    }

    public record LeafExchangeReply(List<Contact> leafSet) implements Message {
        public LeafExchangeReply {
            leafSet = List.copyOf(leafSet);
        }

        public MessageType type() {
            return MessageType.LEAF_EXCHANGE_REPLY;
        }
    }

    /**
     * The sender is leaving gracefully and has handed off its records: drop it from the leaf set and routing table
     * and repair at once, without waiting for a timeout. Not answered.
     */
    public record Leave() implements Message {
        public MessageType type() {
            return MessageType.LEAVE;
        }
    }

    /** A put routed to the key's root, which stores it on the k closest nodes. */
    public record PutRequest(Id key, Bytes value, int ttlSeconds, Bytes secretHash, Contact origin,
                             long originRequestId, int hops) implements Message, Routed {
        public MessageType type() {
            return MessageType.PUT_REQUEST;
        }

        public PutRequest nextHop() {
            return new PutRequest(key, value, ttlSeconds, secretHash, origin, originRequestId, hops + 1);
        }
    }

    /** A get routed toward the key; answered by the first replica on the path. */
    public record GetRequest(Id key, RoutingMode routing, int maxValues, Bytes placemark, Contact origin,
                             long originRequestId, int hops) implements Message, Routed {
        /** A get routed by {@link RoutingMode#DEFAULT}. */
        public GetRequest(Id key, int maxValues, Bytes placemark, Contact origin, long originRequestId, int hops) {
            this(key, RoutingMode.DEFAULT, maxValues, placemark, origin, originRequestId, hops);
        }

        public MessageType type() {
            return MessageType.GET_REQUEST;
        }

        public GetRequest nextHop() {
            return new GetRequest(key, routing, maxValues, placemark, origin, originRequestId, hops + 1);
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

    /** Result of a put: {@code replicas} is how many nodes acknowledged holding the value. */
    public record PutReply(Status status, int replicas, String detail) implements Message {
        public MessageType type() {
            return MessageType.PUT_REPLY;
        }
    }

    /** One live value of a get, with how long it has left. */
    public record ValueEntry(Bytes value, long ttlRemainingMillis) {
    }

    /**
     * Result of a get: the live values in value-hash order; a non-empty {@code placemark} means more values remain
     * and is passed back to fetch the next page. {@code hops} is how many overlay hops the request took.
     */
    public record GetReply(Status status, List<ValueEntry> values, Bytes placemark, int hops, String detail)
            implements Message {
        public GetReply {
            values = List.copyOf(values);
        }

        public MessageType type() {
            return MessageType.GET_REPLY;
        }
    }

    public record RemoveReply(Status status, String detail) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_REPLY;
        }
    }

    /**
     * A record as replicas exchange it; expiry travels as time remaining so that nodes need not share a clock.
     */
    public record ReplicaRecord(Id key, Bytes valueHash, Bytes value, long remainingMillis, Bytes secretHash,
                                boolean tombstone) {
    }

    /** Store these records (put fan-out, repair, anti-entropy, hand-off); answered with {@link StoreAck}. */
    public record StoreReplicas(List<ReplicaRecord> records) implements Message {
        public StoreReplicas {
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.STORE_REPLICAS;
        }
    }

    public record StoreAck(int accepted) implements Message {
        public MessageType type() {
            return MessageType.STORE_ACK;
        }
    }

    /** Asks a replica to remove a value if the secret matches the hash it holds. */
    public record RemoveReplica(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_REPLICA;
        }
    }

    /** OK: removed; FORBIDDEN: wrong or no secret; NOT_FOUND: not held here (a tombstone was kept). */
    public record RemoveReplicaReply(Status status) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_REPLICA_REPLY;
        }
    }

    /** An anti-entropy summary entry. */
    public record DigestEntry(Id key, Bytes valueHash, boolean tombstone) {
    }

    /** Anti-entropy: what the sender holds that the receiver should also hold; answered with {@link DigestWant}. */
    public record Digest(List<DigestEntry> entries) implements Message {
        public Digest {
            entries = List.copyOf(entries);
        }

        public MessageType type() {
            return MessageType.DIGEST;
        }
    }

    /** The digest entries the receiver lacks; the digest's sender then pushes them with {@link StoreReplicas}. */
    public record DigestWant(List<DigestEntry> entries) implements Message {
        public DigestWant {
            entries = List.copyOf(entries);
        }

        public MessageType type() {
            return MessageType.DIGEST_WANT;
        }
    }

    /** Client protocol: put; answered with {@link PutReply}. {@code secretHash} is SHA-256 of the secret or empty. */
    public record ClientPut(Id key, Bytes value, int ttlSeconds, Bytes secretHash) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_PUT;
        }
    }

    /** Client protocol: get; answered with {@link GetReply}. */
    public record ClientGet(Id key, RoutingMode routing, int maxValues, Bytes placemark) implements Message {
        /** A get routed by {@link RoutingMode#DEFAULT}. */
        public ClientGet(Id key, int maxValues, Bytes placemark) {
            this(key, RoutingMode.DEFAULT, maxValues, placemark);
        }

        public MessageType type() {
            return MessageType.CLIENT_GET;
        }
    }

    /** Client protocol: remove; answered with {@link RemoveReply}. */
    public record ClientRemove(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_REMOVE;
        }
    }

    /** A request could not be served at all (malformed, unknown type, overload). */
    public record ErrorReply(Status status, String detail) implements Message {
        public MessageType type() {
            return MessageType.ERROR_REPLY;
        }
    }
}
