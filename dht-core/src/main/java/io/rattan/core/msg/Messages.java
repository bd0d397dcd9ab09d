package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.net.Contact;
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

    /**
     * The answer to a {@link Ping}. A node answering another node's ping may suggest one of its leaf-set members that
     * falls in the same routing-table slot of the pinger as itself: a candidate the pinger can measure, so that its
     * table slots come to hold near nodes (proximity neighbour selection) rather than whichever nodes it learned
     * first. Clients and answers to clients suggest nothing.
     *
     * @param suggestions at most one contact
     * @param senderMillis the answering node's expiry clock ({@code ExpiryClock}) when it answered, epoch
     *                     milliseconds; 0 when unknown (a client's pong). The pinger corrects its own by it.
     */
    public record Pong(List<Contact> suggestions, long senderMillis) implements Message {
        /** A pong without the sender's time. */
        public Pong(List<Contact> suggestions) {
            this(suggestions, 0);
        }

        public Pong {
            suggestions = List.copyOf(suggestions);
            if (suggestions.size() > 1) {
                throw new IllegalArgumentException("a pong suggests at most one contact");
            }
        }

        /** A pong that suggests nothing. */
        public Pong() {
            this(List.of(), 0);
        }

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

    /**
     * The first frame on every peer connection: the dialer claims the contact in the envelope's sender (its id, its
     * listening address, which must be an IP literal equal to the connection's source address, and its gateway port)
     * and, in the envelope's request id, the newest protocol version it speaks (since 12; 0 from a node of 11). The
     * listener proves the claimed port with a {@link Challenge} sent over a connection it dials to the claimed address;
     * until the claim is proven, nothing else is taken on the connection.
     *
     * @param version the frame's version: the oldest the dialer reads ({@code MessageCodec#oldestAccepted})
     */
    public record Hello(int version) implements Message {
        public MessageType type() {
            return MessageType.HELLO;
        }
    }

    /**
     * Sent by a listener that received a {@link Hello}, over a connection it dialed to the claimed address; the
     * envelope's request id is an unpredictable nonce. The node listening there answers with a
     * {@link ChallengeAnswer} on its own connection to the challenger, the one whose claim is being proven.
     */
    public record Challenge() implements Message {
        public MessageType type() {
            return MessageType.CHALLENGE;
        }
    }

    /**
     * Echoes a {@link Challenge}'s nonce (the envelope's request id) on the connection whose claim it proves. Since
     * 13 it proves the claimed id too: {@code proof} is the answerer's public key, whose SHA-1 is the id, and its
     * signature over the nonce and the challenger's contact (docs/protocol.md); null from a node of 12.
     */
    public record ChallengeAnswer(IdProof proof) implements Message {
        public MessageType type() {
            return MessageType.CHALLENGE_ANSWER;
        }
    }

    /** A node's proof that it holds the key its id is the hash of: the public key and a signature by it. */
    public record IdProof(Bytes publicKey, Bytes signature) {
    }

    /** Written back on a proven connection by its listener: the dialer may now send anything on it. */
    public record Welcome() implements Message {
        public MessageType type() {
            return MessageType.WELCOME;
        }
    }

    /**
     * What every node of a cluster must share (docs/deploy.md): k, W and the value limits. A joiner names its own
     * (protocol 12), and a node with others refuses its join.
     */
    public record ClusterTerms(int replicas, int writeQuorum, int valueBytesMax, int ttlSecondsMax) {
    }

    /**
     * Routed toward the joiner's own id; every node on the path sends the joiner a {@link JoinInfo}. {@code terms}:
     * the joiner's {@link ClusterTerms}; null from a node of protocol 11, which sends none.
     */
    public record JoinRequest(Contact joiner, long originRequestId, int hops, ClusterTerms terms)
            implements Message, Routed {
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
            return new JoinRequest(joiner, originRequestId, hops + 1, terms);
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
     * A record as replicas exchange it. Expiry travels as an absolute time (epoch milliseconds, as the gateway's expiry
     * clock set it): a copy's life never grows with its transit or with the clock of a node it passed through; nodes'
     * expiry clocks agree within the skew bound S (docs/durability.md).
     *
     * <p>A value carries its {@code binding} (32 bytes, or empty when not removable) and an empty {@code secret}; a
     * tombstone carries the remove's {@code secret} (1..1,024 bytes) and an empty binding, so that the receiver can
     * check it against the binding of the copy it holds (protocol version 6).
     *
     * <p>An owned record carries its owner's {@code stamp} (null: unowned; protocol version 8): its
     * {@code valueHash} is its slot's name, its expiry the signed one, and it has no binding and no secret.
     */
    public record ReplicaRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes binding,
                                Bytes secret, boolean tombstone, OwnerStamp stamp) {
        /** An unowned record. */
        public ReplicaRecord(Id key, Bytes valueHash, Bytes value, long expiresAtMillis, Bytes binding, Bytes secret,
                             boolean tombstone) {
            this(key, valueHash, value, expiresAtMillis, binding, secret, tombstone, null);
        }

        /** The slot the record is stored in ({@link SecretBinding#slotOf}). */
        public Bytes slot() {
            return SecretBinding.slotOf(key, valueHash, binding, secret, tombstone, stamp != null);
        }
    }

    /**
     * Store these records (put fan-out, repair, anti-entropy, hand-off); answered with {@link StoreAck}. A put's copy
     * names the gateway that waits on it, {@code ackTo} and its request {@code ackRequestId} (protocol version 14;
     * null and 0 otherwise): a replica that stores the copy acknowledges it to that gateway too ({@link PutAck}).
     */
    public record StoreReplicas(List<ReplicaRecord> records, Contact ackTo, long ackRequestId) implements Message {
        public StoreReplicas {
            records = List.copyOf(records);
        }

        /** Copies that no gateway waits on. */
        public StoreReplicas(List<ReplicaRecord> records) {
            this(records, null, 0);
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

    /**
     * A replica's word to a put's gateway, sent straight to it under the gateway's request id (protocol version 14):
     * it holds, durably, the record named here. The gateway counts these, one per proven node, toward W
     * ({@code AttributedWrite}); a hop that changed what the put carries is caught by the fields not matching.
     */
    public record PutAck(Id key, Bytes valueHash, long expiresAtMillis, Bytes binding) implements Message {
        /** The ack of a replica that holds {@code r}. */
        public static PutAck of(ReplicaRecord r) {
            return new PutAck(r.key(), r.valueHash(), r.expiresAtMillis(), r.binding());
        }

        public MessageType type() {
            return MessageType.PUT_ACK;
        }
    }

    /**
     * A replica's word to a remove's gateway, sent straight to it under the gateway's request id (protocol version
     * 15): it has written the tombstone of the value named here, made with the remove's secret (as its answer to the
     * root says; not waiting for a sync, as a remove's answers never have). The gateway counts
     * these, one per proven node and host, toward W ({@code AttributedWrite}), as it counts a put's {@link PutAck}s.
     */
    public record RemoveAck(Id key, Bytes valueHash) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_ACK;
        }
    }

    /**
     * Asks a replica to remove a value if the secret opens the binding it holds ({@link SecretBinding}). A remove's
     * root names the gateway that waits on it, {@code ackTo} and its request {@code ackRequestId} (protocol version
     * 15; null and 0 otherwise): a replica that writes the tombstone acknowledges it to that gateway
     * ({@link RemoveAck}).
     */
    public record RemoveReplica(Id key, Bytes valueHash, Bytes secret, int ttlSeconds, Contact ackTo,
                                long ackRequestId) implements Message {
        /** A remove that no gateway waits on. */
        public RemoveReplica(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) {
            this(key, valueHash, secret, ttlSeconds, null, 0);
        }

        public MessageType type() {
            return MessageType.REMOVE_REPLICA;
        }
    }

    /**
     * OK: removed (or removed already with this secret); FORBIDDEN: the secret does not open the value's binding, or
     * the value has none; NOT_FOUND: not held here (nothing written: the tombstone arrives by anti-entropy);
     * UNAVAILABLE: the asker is no replica of the key in this replica's view (nothing written).
     */
    public record RemoveReplicaReply(Status status) implements Message {
        public MessageType type() {
            return MessageType.REMOVE_REPLICA_REPLY;
        }
    }

    /**
     * An anti-entropy summary entry, naming a record by its key and slot ({@code StoredRecord.slot}: a value's hash,
     * or since protocol version 16 a name that commits to a bound value's binding too). For an owned record, {@code seq} is its sequence and {@code stampTag} the first
     * 8 bytes of its signature with the lowest bit set (never 0), which differ between any two versions; for an
     * unowned one both are 0. So two replicas holding different versions of one owned value see a difference, and
     * which one is greater (protocol version 8).
     */
    public record DigestEntry(Id key, Bytes slot, boolean tombstone, long seq, long stampTag) {
        public DigestEntry(Id key, Bytes slot, boolean tombstone) {
            this(key, slot, tombstone, 0, 0);
        }
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

    /**
     * One part of a key range as range-digest repair summarises it: how many records the part holds and the sum
     * (mod 2^64) of their 64-bit hashes. A record's hash covers (key, value hash, tombstone, sequence number; the last
     * is 0 until values carry one), so two parts are equal exactly when, but for a hash collision, they hold the same
     * records.
     */
    public record RangeSum(int count, long hash) {
    }

    /**
     * Range-digest repair: the sender's {@link RangeSum}s of the {@code parts.size()} equal parts of the clockwise
     * arc [{@code lo}, {@code hi}) (lo == hi: the whole ring), over the records both it and the receiver should hold
     * (with {@code handoff}, as replicas of the leaving sender's keys: one more node per key). Answered with
     * {@link RangeDigestReply}: the receiver's sums of the same parts.
     */
    public record RangeDigest(Id lo, Id hi, boolean handoff, List<RangeSum> parts) implements Message {
        public RangeDigest {
            parts = List.copyOf(parts);
        }

        public MessageType type() {
            return MessageType.RANGE_DIGEST;
        }
    }

    /** The receiver's sums of the parts a {@link RangeDigest} named, in the same order. */
    public record RangeDigestReply(List<RangeSum> parts) implements Message {
        public RangeDigestReply {
            parts = List.copyOf(parts);
        }

        public MessageType type() {
            return MessageType.RANGE_DIGEST_REPLY;
        }
    }

    /**
     * A quorum get's read of one replica: its records of {@code key} (values and tombstones) whose value hash follows
     * {@code placemark} (empty: from the first), in slot order, at most {@code maxRecords} (0: the replica's page
     * limit) and the replica's page byte limit. Answered with {@link ReplicaReadReply}, or {@link ErrorReply}
     * ({@code FORBIDDEN} to a node that is no replica of the key in the asked node's view, {@code IO_ERROR} when its
     * store failed). Only records that pass {@code filter} are read (protocol version 9).
     */
    public record ReplicaRead(Id key, Bytes placemark, int maxRecords, ValueFilter filter) implements Message {
        /** A read of every record of the key. */
        public ReplicaRead(Id key, Bytes placemark, int maxRecords) {
            this(key, placemark, maxRecords, ValueFilter.NONE);
        }

        public MessageType type() {
            return MessageType.REPLICA_READ;
        }
    }

    /**
     * A replica's records for a {@link ReplicaRead}, with their absolute expiry; {@code more}: records of the key
     * remain after the last one.
     */
    public record ReplicaReadReply(List<ReplicaRecord> records, boolean more) implements Message {
        public ReplicaReadReply {
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.REPLICA_READ_REPLY;
        }
    }

    /**
     * Client protocol: put; answered with {@link PutReply}. {@code binding} is {@link SecretBinding#of}: SHA-256 of
     * the secret, the key and the value's hash, computed by the client (or by the HTTP gateway from the secret its
     * client gave it), or empty for a value nobody can remove.
     *
     * <p>An owned put carries its owner's {@code stamp} (null: unowned) instead: no binding, and its signed expiry
     * instead of a TTL ({@code ttlSeconds} 0); and may carry a {@code condition} (compare-and-swap). An owned put
     * with an empty value is the owner's remove (signed op 2): the tombstone of the owner's value.
     */
    public record ClientPut(Id key, Bytes value, int ttlSeconds, Bytes binding, OwnerStamp stamp,
                            PutCondition condition) implements Message {
        /** An unowned put. */
        public ClientPut(Id key, Bytes value, int ttlSeconds, Bytes binding) {
            this(key, value, ttlSeconds, binding, null, PutCondition.NONE);
        }

        /** An unconditional put, owned when {@code stamp} is not null. */
        public ClientPut(Id key, Bytes value, int ttlSeconds, Bytes binding, OwnerStamp stamp) {
            this(key, value, ttlSeconds, binding, stamp, PutCondition.NONE);
        }

        public MessageType type() {
            return MessageType.CLIENT_PUT;
        }
    }

    /**
     * Client protocol: get; answered with {@link GetReply}: at most {@code maxValues} values (0: the node's page
     * limit) whose hashes follow {@code placemark} (empty: from the first), performed as {@code options} say.
     * {@code wantHolders} asks for the key's replicas in the reply, which a one-hop client learns from.
     *
     * <p>The binary RPC carries what a gateway needs of the options to start one copy (routing, p, one-hop,
     * consistency, R, filter): a binary client races and hedges itself, so a get decoded from the wire has one gateway and no
     * hedge. A gateway that races and hedges for its client (HTTP) passes the whole options.
     */
    public record ClientGet(Id key, int maxValues, Bytes placemark, boolean wantHolders, GetOptions options)
            implements Message {
        /** The first page, as large as the node gives, not asking for holders. */
        public static ClientGet of(Id key, GetOptions options) {
            return new ClientGet(key, 0, Bytes.EMPTY, false, options);
        }

        /** {@link #of(Id, GetOptions)} with one copy routed by {@link RoutingMode#DEFAULT}. */
        public static ClientGet of(Id key) {
            return of(key, GetOptions.of(RoutingMode.DEFAULT));
        }

        /** The same get for the page of at most {@code max} values after {@code mark}. */
        public ClientGet page(int max, Bytes mark) {
            return new ClientGet(key, max, mark, wantHolders, options);
        }

        /** The same get, asking for the key's replicas in the reply. */
        public ClientGet askingHolders() {
            return new ClientGet(key, maxValues, placemark, true, options);
        }

        public RoutingMode routing() {
            return options.routing();
        }

        public MessageType type() {
            return MessageType.CLIENT_GET;
        }
    }

    /**
     * Iterative lookup step: the gateway asks a node for the key's values; a node that would answer a routed get
     * answers with them, any other names the neighbours it knows closest to the key. Not routed, not acked: the
     * reply is the acknowledgement. {@code filter}: the values the get wants (protocol version 9).
     */
    public record IterativeGet(Id key, int maxValues, Bytes placemark, boolean wantHolders, ValueFilter filter)
            implements Message {
        /** An iterative get of every value of the key. */
        public IterativeGet(Id key, int maxValues, Bytes placemark, boolean wantHolders) {
            this(key, maxValues, placemark, wantHolders, ValueFilter.NONE);
        }

        public MessageType type() {
            return MessageType.ITERATIVE_GET;
        }
    }

    /**
     * Answer to {@link IterativeGet}: with {@code answered}, the values (and {@code contacts} the key's replicas if
     * they were asked for); without, {@code contacts} are the next candidates, closest to the key first.
     */
    public record IterativeGetReply(Status status, boolean answered, List<ValueEntry> values, Bytes placemark,
                                    List<Contact> contacts) implements Message {
        public IterativeGetReply {
            values = List.copyOf(values);
            contacts = List.copyOf(contacts);
        }

        public MessageType type() {
            return MessageType.ITERATIVE_GET_REPLY;
        }
    }

    /** Client protocol: remove; answered with {@link RemoveReply}. */
    public record ClientRemove(Id key, Bytes valueHash, Bytes secret, int ttlSeconds) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_REMOVE;
        }
    }

    /**
     * Client protocol: the nodes the gateway knows, for a client's one-hop image; answered with {@link RingReply}:
     * at most {@code maxNodes} (0: the node's page bound) whose ids follow {@code placemark} (the last id of the
     * previous page; empty: from the first). Protocol version 9.
     */
    public record ClientRing(Bytes placemark, int maxNodes) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_RING;
        }
    }

    /**
     * A page of the ring in id order, each node with its gateway port; {@code placemark} is the last id of the page
     * when more follow, empty on the last page; {@code replicas}: k, how many replicas each key has.
     */
    public record RingReply(List<Contact> nodes, Bytes placemark, int replicas) implements Message {
        public RingReply {
            nodes = List.copyOf(nodes);
        }

        public MessageType type() {
            return MessageType.RING_REPLY;
        }
    }

    // ---------------------------------------------------------------- watch (protocol version 10)

    /**
     * A gateway registers its watch of {@code key} at a replica for {@code leaseMillis}, renews it, or (with
     * {@code leaseMillis} 0) ends it; {@code epoch} names the gateway's watch of the key, so that a renewal is told
     * from a new watch. With {@code wantRecords} the answer carries a page of the replica's records of the key whose
     * value hash follows {@code placemark}, read when the registration took effect. Answered with {@link WatchAck}.
     */
    public record Watch(Id key, long epoch, int leaseMillis, boolean wantRecords, Bytes placemark)
            implements Message {
        public MessageType type() {
            return MessageType.WATCH;
        }
    }

    /**
     * A replica's answer to a {@link Watch}: {@code status} OK when it holds the watch now (else why not: not a
     * replica of the key in its view, or full); {@code renewed} when the same watch was registered already, and then
     * {@code changesSent} how many {@link WatchChange}s it has sent for it; {@code replicas} the key's replica set as
     * it sees it; {@code records} the page asked for (tombstones without their secret), {@code more} when more follow.
     */
    public record WatchAck(Status status, boolean renewed, long changesSent, List<Contact> replicas,
                           List<ReplicaRecord> records, boolean more) implements Message {
        public WatchAck {
            replicas = List.copyOf(replicas);
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.WATCH_ACK;
        }
    }

    /**
     * A replica tells a watching gateway the records of {@code key} it has just stored (tombstones without their
     * secret); {@code number} counts the changes it sent for this watch (1, 2, ...), so that a gap shows. Not answered.
     */
    public record WatchChange(Id key, long epoch, long number, List<ReplicaRecord> records) implements Message {
        public WatchChange {
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.WATCH_CHANGE;
        }
    }

    /**
     * Client protocol: watch {@code key}'s values that pass {@code filter}. Answered by a stream of
     * {@link WatchEvent}s carrying this request's id, until one of kind {@code ENDED} or a {@link ClientUnwatch}.
     * {@code resumeEpoch} and {@code resumeSeq} name the last event a previous watch of the key delivered (0 and 0:
     * none): a gateway that still holds the events since sends those, any other the key's live values again.
     */
    public record ClientWatch(Id key, ValueFilter filter, long resumeEpoch, long resumeSeq) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_WATCH;
        }
    }

    /** Client protocol: ends the watch the request {@code watchRequestId} started on this connection; not answered. */
    public record ClientUnwatch(long watchRequestId) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_UNWATCH;
        }
    }

    /**
     * One event of a client's watch, as the gateway delivers it (on the binary RPC, with the watch request's id).
     * {@code epoch} and {@code seq} name it for a resume ({@link ClientWatch}); {@code valueHash} is the value's hash
     * (an owned value's slot) for {@code VALUE}, {@code REMOVED} and {@code EXPIRED}; {@code value} the value for
     * {@code VALUE} ({@link #NO_VALUE} otherwise); {@code status} and {@code detail} why an {@code ENDED} watch ended.
     */
    public record WatchEvent(WatchKind kind, long epoch, long seq, Bytes valueHash, ValueEntry value, Status status,
                             String detail) implements Message {
        /** The value of an event that carries none. */
        public static final ValueEntry NO_VALUE = new ValueEntry(Bytes.EMPTY, 0);
        /**
         * The detail of the READY that follows the events since a resume position ({@link ClientWatch}), when the
         * gateway still held them; any other READY follows a snapshot of the live values.
         */
        public static final String RESUMED = "resumed";

        public MessageType type() {
            return MessageType.WATCH_EVENT;
        }

        /** An event of {@code kind} other than {@code ENDED}. */
        public static WatchEvent of(WatchKind kind, long epoch, long seq, Bytes valueHash, ValueEntry value) {
            return new WatchEvent(kind, epoch, seq, valueHash, value, Status.OK, "");
        }

        /** The last event of a watch, which ended for {@code status}. */
        public static WatchEvent ended(Status status, String detail) {
            return new WatchEvent(WatchKind.ENDED, 0, 0, Bytes.EMPTY, NO_VALUE, status, detail);
        }
    }

    /**
     * A message of one namespace (protocol version 11): its {@code body} is read and answered by that namespace's
     * replicas, with that namespace's k, W and limits. Messages of the default namespace travel bare; replies (matched
     * by request id) travel bare in every namespace. A client's request to a namespace comes wrapped too.
     */
    public record InNamespace(String namespace, Message body) implements Message {
        public InNamespace {
            if (!NamespaceDefinition.validName(namespace) || NamespaceDefinition.DEFAULT.equals(namespace)) {
                throw new IllegalArgumentException("not a namespace to wrap: '" + namespace + "'");
            }
            if (body == null || body instanceof InNamespace) {
                throw new IllegalArgumentException("a namespace wraps one message, never another wrapper");
            }
        }

        public MessageType type() {
            return MessageType.IN_NAMESPACE;
        }
    }

    /**
     * Namespace definitions, as a node passes on one it learned (to every node it knows, once) or answers a
     * {@link NamespaceQuery}; retired ones included.
     */
    public record NamespaceDefs(List<NamespaceDefinition> definitions) implements Message {
        public NamespaceDefs {
            definitions = List.copyOf(definitions);
        }

        public MessageType type() {
            return MessageType.NAMESPACE_DEFS;
        }
    }

    /** Asks a node for the definition of {@code name}, or for all it knows when {@code name} is empty. */
    public record NamespaceQuery(String name) implements Message {
        public MessageType type() {
            return MessageType.NAMESPACE_QUERY;
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
