package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The client protocol's requests and answers (a client's puts, gets, removes, ring listings), and an iterative
 * gateway's questions to the nodes on its way.
 */
public final class ClientMessages {

    private ClientMessages() {
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
}
