package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The messages between a key's replicas: copies and their acknowledgements, removes at each replica, and a quorum
 * get's reads of the other replicas.
 */
public final class ReplicaMessages {

    private ReplicaMessages() {
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
}
