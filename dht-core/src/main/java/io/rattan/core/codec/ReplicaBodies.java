package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HASH_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.SECRET_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.VALUE_BYTES_MAX;

import io.rattan.api.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The bodies of the messages replicas exchange among themselves: record copies (store, read, remove, and their
 * acks) and anti-entropy repair (key digests, the keys a digest's receiver wants, and range digests of sums for
 * range sync). They carry whole records and digests in lists, never an origin or hops, and change with the durability
 * design (docs/durability.md) rather than the client API; hence a class of their own.
 */
final class ReplicaBodies implements BodyCodec {

    static final ReplicaBodies INSTANCE = new ReplicaBodies();

    // The smallest encoding of each list element, so that a claimed count can be checked against the bytes left.
    private static final int REPLICA_RECORD_BYTES_MIN = Id.BYTES + 4 + 4 + 8 + 4 + 4 + 1 + 1;
    private static final int DIGEST_ENTRY_BYTES_MIN = Id.BYTES + 4 + 1 + 8 + 8;
    private static final int RANGE_SUM_BYTES = 4 + 8;

    // The first version whose STORE_REPLICAS names a gateway to acknowledge to, and that has PUT_ACK.
    static final int ACKS_SINCE = 14;
    // The first version whose REMOVE_REPLICA names a gateway to acknowledge to, and that has REMOVE_ACK.
    static final int REMOVE_ACKS_SINCE = 15;

    private ReplicaBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case STORE_REPLICAS -> {
                StoreReplicas m = (StoreReplicas) body;
                writeReplicaRecords(w, m.records());
                writeAckTo(w, ACKS_SINCE, m.ackTo(), m.ackRequestId());
            }
            case REPLICA_READ -> {
                ReplicaRead m = (ReplicaRead) body;
                w.id(m.key(), "key");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(m.maxRecords(), "maxRecords");
                w.filter(m.filter());
            }
            case REPLICA_READ_REPLY -> {
                ReplicaReadReply m = (ReplicaReadReply) body;
                writeReplicaRecords(w, m.records());
                w.bool(m.more());
            }
            case STORE_ACK -> w.nonNegativeI32(((StoreAck) body).accepted(), "accepted");
            case PUT_ACK -> {
                if (w.version() < ACKS_SINCE) {
                    throw new CodecException("PUT_ACK is not in protocol version " + w.version());
                }
                PutAck m = (PutAck) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.i64(m.expiresAtMillis());
                w.bytes(m.binding(), HASH_BYTES_MAX, "binding");
            }
            case REMOVE_ACK -> {
                if (w.version() < REMOVE_ACKS_SINCE) {
                    throw new CodecException("REMOVE_ACK is not in protocol version " + w.version());
                }
                RemoveAck m = (RemoveAck) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
            }
            case REMOVE_REPLICA -> {
                RemoveReplica m = (RemoveReplica) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                writeAckTo(w, REMOVE_ACKS_SINCE, m.ackTo(), m.ackRequestId());
            }
            case REMOVE_REPLICA_REPLY -> w.status(((RemoveReplicaReply) body).status());
            case DIGEST -> writeDigestEntries(w, ((Digest) body).entries());
            case DIGEST_WANT -> writeDigestEntries(w, ((DigestWant) body).entries());
            case RANGE_DIGEST -> {
                RangeDigest m = (RangeDigest) body;
                w.id(m.lo(), "lo");
                w.id(m.hi(), "hi");
                w.bool(m.handoff());
                writeRangeSums(w, m.parts());
            }
            case RANGE_DIGEST_REPLY -> writeRangeSums(w, ((RangeDigestReply) body).parts());
            default -> throw BodyCodec.notInFamily(body.type(), ReplicaBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case STORE_REPLICAS -> readStoreReplicas(r);
            case REPLICA_READ -> new ReplicaRead(r.id("key"), r.bytes(HASH_BYTES_MAX, "placemark"),
                    r.nonNegativeI32("maxRecords"), r.filter());
            case REPLICA_READ_REPLY -> new ReplicaReadReply(readReplicaRecords(r), r.bool("more"));
            case STORE_ACK -> new StoreAck(r.nonNegativeI32("accepted"));
            case PUT_ACK -> new PutAck(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"), r.i64("expiresAtMillis"),
                    r.bytes(HASH_BYTES_MAX, "binding"));
            case REMOVE_ACK -> new RemoveAck(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"));
            case REMOVE_REPLICA -> readRemoveReplica(r);
            case REMOVE_REPLICA_REPLY -> new RemoveReplicaReply(r.status());
            case DIGEST -> new Digest(readDigestEntries(r));
            case DIGEST_WANT -> new DigestWant(readDigestEntries(r));
            case RANGE_DIGEST -> new RangeDigest(r.id("lo"), r.id("hi"), r.bool("handoff"), readRangeSums(r));
            case RANGE_DIGEST_REPLY -> new RangeDigestReply(readRangeSums(r));
            default -> throw BodyCodec.notInFamily(type, ReplicaBodies.class);
        };
    }

    /**
     * The gateway a write is acknowledged to, in frames of {@code since} on: a presence byte, then the gateway and its
     * request id (none for copies and removes no gateway waits on).
     */
    private static void writeAckTo(FrameWriter w, int since, Contact ackTo, long ackRequestId) {
        if (w.version() >= since) {
            w.bool(ackTo != null);
            if (ackTo != null) {
                w.contact(ackTo, "ackTo");
                w.i64(ackRequestId);
            }
        }
    }

    private static RemoveReplica readRemoveReplica(FrameReader r) {
        RemoveReplica m = new RemoveReplica(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"));
        if (r.version() < REMOVE_ACKS_SINCE || !r.bool("ackTo present")) {
            return m;
        }
        return new RemoveReplica(m.key(), m.valueHash(), m.secret(), m.ttlSeconds(), r.contact("ackTo"),
                r.i64("ackRequestId"));
    }

    private static StoreReplicas readStoreReplicas(FrameReader r) {
        List<ReplicaRecord> records = readReplicaRecords(r);
        if (r.version() < ACKS_SINCE || !r.bool("ackTo present")) {
            return new StoreReplicas(records);
        }
        return new StoreReplicas(records, r.contact("ackTo"), r.i64("ackRequestId"));
    }

    static void writeReplicaRecords(FrameWriter w, List<ReplicaRecord> records) {
        w.list(records, "records", (lw, r) -> {
            lw.id(r.key(), "key");
            lw.bytes(r.valueHash(), HASH_BYTES_MAX, "valueHash");
            lw.bytes(r.value(), VALUE_BYTES_MAX, "value");
            lw.nonNegativeI64(r.expiresAtMillis(), "expiresAtMillis");
            lw.bytes(r.binding(), HASH_BYTES_MAX, "binding");
            lw.bytes(r.secret(), SECRET_BYTES_MAX, "secret");
            lw.bool(r.tombstone());
            lw.stamp(r.stamp());
        });
    }

    static List<ReplicaRecord> readReplicaRecords(FrameReader r) {
        return r.list(REPLICA_RECORD_BYTES_MIN, "records", lr -> new ReplicaRecord(lr.id("key"),
                lr.bytes(HASH_BYTES_MAX, "valueHash"), lr.bytes(VALUE_BYTES_MAX, "value"),
                lr.nonNegativeI64("expiresAtMillis"), lr.bytes(HASH_BYTES_MAX, "binding"),
                lr.bytes(SECRET_BYTES_MAX, "secret"), lr.bool("tombstone"), lr.stamp()));
    }

    private static void writeDigestEntries(FrameWriter w, List<DigestEntry> entries) {
        w.list(entries, "entries", (lw, e) -> {
            lw.id(e.key(), "key");
            lw.bytes(e.slot(), HASH_BYTES_MAX, "slot");
            lw.bool(e.tombstone());
            lw.i64(e.seq());
            lw.i64(e.stampTag());
        });
    }

    private static List<DigestEntry> readDigestEntries(FrameReader r) {
        return r.list(DIGEST_ENTRY_BYTES_MIN, "entries", lr -> new DigestEntry(lr.id("key"),
                lr.bytes(HASH_BYTES_MAX, "slot"), lr.bool("tombstone"), lr.i64("seq"), lr.i64("stampTag")));
    }

    private static void writeRangeSums(FrameWriter w, List<RangeSum> parts) {
        w.list(parts, "parts", (lw, p) -> {
            lw.nonNegativeI32(p.count(), "count");
            lw.i64(p.hash());
        });
    }

    private static List<RangeSum> readRangeSums(FrameReader r) {
        return r.list(RANGE_SUM_BYTES, "parts", lr -> new RangeSum(lr.nonNegativeI32("count"), lr.i64("hash")));
    }
}
