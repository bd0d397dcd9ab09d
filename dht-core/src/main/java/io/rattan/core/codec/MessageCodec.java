package io.rattan.core.codec;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Consistency;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.IterativeGet;
import io.rattan.core.msg.Messages.IterativeGetReply;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.ClientRemove;
import io.rattan.core.msg.Messages.Digest;
import io.rattan.core.msg.Messages.DigestEntry;
import io.rattan.core.msg.Messages.DigestWant;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.Challenge;
import io.rattan.core.msg.Messages.ChallengeAnswer;
import io.rattan.core.msg.Messages.Hello;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.Welcome;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.msg.Messages.LeafExchange;
import io.rattan.core.msg.Messages.LeafExchangeReply;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.msg.Messages.RangeDigest;
import io.rattan.core.msg.Messages.RangeDigestReply;
import io.rattan.core.msg.Messages.RangeSum;
import io.rattan.core.msg.Messages.RemoveReplica;
import io.rattan.core.msg.Messages.RemoveReplicaReply;
import io.rattan.core.msg.Messages.RemoveReply;
import io.rattan.core.msg.Messages.RemoveRequest;
import io.rattan.core.msg.Messages.ReplicaRead;
import io.rattan.core.msg.Messages.ReplicaReadReply;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.Messages.StoreAck;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.msg.Messages.ValueEntry;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.util.Bytes;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The binary codec of the peer and client protocols: one {@link Envelope} per frame. This class comment is the
 * protocol specification.
 *
 * <h2>Framing</h2>
 * A frame body is what {@link #encode} returns. Transports send each body after a 4-byte big-endian length, which is
 * not part of the body; a receiver rejects a length above its {@link #frameBytesMax()} before reading the body.
 *
 * <h2>Frame body, version 7</h2>
 * All integers are big-endian and fixed width; there are no varints, so each value has exactly one encoding.
 * <pre>
 * u8    version      must be {@value #VERSION}
 * u8    type tag     {@link MessageType#tag()}
 * u8    flags        bit 0: a sender is present; all other bits must be 0
 * [contact sender]   only when flags bit 0 is set
 * i64   requestId
 * ...   body         the fields of the message record, in declaration order
 * </pre>
 * Field encodings:
 * <pre>
 * Id        20 bytes, most significant first
 * Bytes     u32 length, then the bytes (the length is bounded per field, below)
 * int       4 bytes; long: 8 bytes
 * boolean   1 byte, 0 or 1 (any other value is an error)
 * String    u16 length, then that many bytes of well-formed UTF-8; at most {@value #STRING_BYTES_MAX} bytes
 * Status    u8 {@link Status#code()}
 * RoutingMode u8 {@link io.rattan.core.msg.RoutingMode#code()} (0 greedy, 1 delay-aware), right after the key of
 *           GetRequest and ClientGet
 * Consistency u8 {@link Consistency#code()} (0 one, 1 quorum), in ClientGet
 * List      u16 count, then the elements; at most {@value #LIST_COUNT_MAX} elements
 * Contact   Id, then host as u8 length (1..{@value #HOST_BYTES_MAX}) and UTF-8 bytes, then u16 port, then u16
 *           gatewayPort (the node's binary client gateway on the same host; 0: none)
 * records   ValueEntry, ReplicaRecord, DigestEntry, RangeSum: their fields in declaration order
 * </pre>
 * Per-field bounds:
 * <pre>
 * value                           at most {@value #VALUE_BYTES_MAX} bytes (a node's own limit is at most this)
 * valueHash, binding, placemark   at most {@value #HASH_BYTES_MAX} bytes
 * secret (removes, tombstones)    at most {@value #SECRET_BYTES_MAX} bytes
 * hops                            0..{@value #HOPS_MAX}
 * ttlSeconds, maxValues, replicas, accepted, expiresAtMillis, ttlRemainingMillis, senderMillis, RangeSum.count,
 * retryAfterMillis, readReplicas, readQuorum, replicasRead, maxRecords   at least 0
 * </pre>
 * Every field of every record must be non-null; only the envelope's sender is optional.
 *
 * <h2>Hostile input</h2>
 * The decoder checks every length against both the bytes left in the frame and the field's bound before it
 * allocates anything, and a list count times the smallest encoding of one element against the bytes left, so a
 * short frame cannot make it allocate much. A frame must be consumed exactly: trailing bytes are an error. Any
 * malformed frame yields a {@link CodecException} and nothing else. The encoder refuses exactly what the decoder
 * would reject, and the encoding is canonical: {@code encode(decode(frame))} equals {@code frame}.
 *
 * <p>Immutable and thread-safe: any thread may call any method.
 */
public final class MessageCodec {

    /** The protocol version carried in the first byte of every frame. */
    public static final int VERSION = 7;
    /** Default largest frame body: 1 MiB. */
    public static final int DEFAULT_FRAME_BYTES_MAX = 1 << 20;
    /** Largest value, in bytes. */
    public static final int VALUE_BYTES_MAX = 64 * 1024;
    /** Largest value hash, binding or placemark, in bytes. */
    public static final int HASH_BYTES_MAX = 64;
    /** Largest removal secret, in bytes. */
    public static final int SECRET_BYTES_MAX = 1024;
    /** Largest string, in UTF-8 bytes. */
    public static final int STRING_BYTES_MAX = 4096;
    /** Largest host name of a contact, in UTF-8 bytes. */
    public static final int HOST_BYTES_MAX = 255;
    /** Most elements in one list. */
    public static final int LIST_COUNT_MAX = 4096;
    /** Most overlay hops a routed request or a reply may report. */
    public static final int HOPS_MAX = 255;

    private static final int FLAG_SENDER = 1;
    private static final int HEADER_BYTES = 3;

    // The smallest encoding of each list element, so that a claimed count can be checked against the bytes left.
    private static final int CONTACT_BYTES_MIN = Id.BYTES + 1 + 1 + 2 + 2;
    private static final int VALUE_ENTRY_BYTES_MIN = 4 + 8;
    private static final int REPLICA_RECORD_BYTES_MIN = Id.BYTES + 4 + 4 + 8 + 4 + 4 + 1;
    private static final int DIGEST_ENTRY_BYTES_MIN = Id.BYTES + 4 + 1;
    private static final int RANGE_SUM_BYTES = 4 + 8;

    private final int frameBytesMax;

    /** A codec that accepts frames up to {@link #DEFAULT_FRAME_BYTES_MAX}. */
    public MessageCodec() {
        this(DEFAULT_FRAME_BYTES_MAX);
    }

    /**
     * A codec that refuses to encode or decode frame bodies above {@code frameBytesMax} bytes.
     *
     * @throws IllegalArgumentException if {@code frameBytesMax} is not positive
     */
    public MessageCodec(int frameBytesMax) {
        if (frameBytesMax <= 0) {
            throw new IllegalArgumentException("frameBytesMax must be positive: " + frameBytesMax);
        }
        this.frameBytesMax = frameBytesMax;
    }

    /** The largest frame body, in bytes, this codec encodes or decodes. */
    public int frameBytesMax() {
        return frameBytesMax;
    }

    /**
     * Encodes an envelope as a frame body, WITHOUT any length prefix (transports add a 4-byte big-endian length).
     *
     * @throws CodecException if a field is null or breaks a bound, or the frame would exceed {@link #frameBytesMax()}
     */
    public byte[] encode(Envelope envelope) {
        int size = encodedSize(envelope);
        Writer w = new Writer(new byte[size]);
        writeEnvelope(w, envelope);
        if (w.pos != size) {
            throw new IllegalStateException("encoder wrote " + w.pos + " bytes, sized " + size);
        }
        return w.buf;
    }

    /**
     * Encodes an envelope as a frame body into {@code dst} at {@code offset}, for a caller that reuses one array for
     * many frames; returns the number of bytes written, {@link #encodedSize}'s.
     *
     * @throws CodecException            as {@link #encode} does
     * @throws IndexOutOfBoundsException if the frame does not fit in {@code dst} from {@code offset}
     */
    public int encode(Envelope envelope, byte[] dst, int offset) {
        Objects.requireNonNull(dst, "dst");
        int size = encodedSize(envelope);
        Objects.checkFromIndexSize(offset, size, dst.length);
        Writer w = new Writer(dst, offset);
        writeEnvelope(w, envelope);
        if (w.pos != offset + size) {
            throw new IllegalStateException("encoder wrote " + (w.pos - offset) + " bytes, sized " + size);
        }
        return size;
    }

    /**
     * The exact length of the array {@link #encode} would return, found without allocating the frame. Throws exactly
     * when {@code encode} would.
     *
     * @throws CodecException if a field is null or breaks a bound, or the frame would exceed {@link #frameBytesMax()}
     */
    public int encodedSize(Envelope envelope) {
        Writer counter = new Writer(null);
        writeEnvelope(counter, envelope);
        if (counter.pos > frameBytesMax) {
            throw new CodecException("frame of " + counter.pos + " bytes exceeds frameBytesMax " + frameBytesMax);
        }
        return counter.pos;
    }

    /** Decodes a whole array as one frame body; see {@link #decode(byte[], int, int)}. */
    public Envelope decode(byte[] frame) {
        Objects.requireNonNull(frame, "frame");
        return decode(frame, 0, frame.length);
    }

    /**
     * Decodes exactly {@code length} bytes at {@code offset} as one frame body (no length prefix). The bytes are
     * copied where kept: the caller may reuse {@code frame} afterwards.
     *
     * @throws CodecException for any malformed frame, including trailing bytes, a frame above
     *                        {@link #frameBytesMax()}, and a range that does not lie inside {@code frame}; never any
     *                        other exception for any content of {@code frame}
     */
    public Envelope decode(byte[] frame, int offset, int length) {
        Objects.requireNonNull(frame, "frame");
        if (offset < 0 || length < 0 || offset > frame.length - length) {
            throw new CodecException("range [" + offset + ", +" + length + ") lies outside an array of "
                    + frame.length + " bytes");
        }
        if (length > frameBytesMax) {
            throw new CodecException("frame of " + length + " bytes exceeds frameBytesMax " + frameBytesMax);
        }
        try {
            Reader r = new Reader(frame, offset, offset + length);
            Envelope envelope = readEnvelope(r);
            if (r.remaining() != 0) {
                throw new CodecException(r.remaining() + " trailing bytes after " + envelope.body().type());
            }
            return envelope;
        } catch (CodecException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // A record constructor refused a decoded field (an empty host, say).
            throw new CodecException("invalid field: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // The reader checks bounds before every read; this is a safety net, not a path we expect.
            throw new CodecException("malformed frame: " + e, e);
        }
    }

    // ---- encoding: one walk serves both sizing (buf == null) and writing ----

    private static void writeEnvelope(Writer w, Envelope envelope) {
        Message body = envelope.body();
        Contact sender = envelope.sender();
        w.u8(VERSION);
        w.u8(body.type().tag());
        w.u8(sender != null ? FLAG_SENDER : 0);
        if (sender != null) {
            w.contact(sender, "sender");
        }
        w.i64(envelope.requestId());
        writeBody(w, body);
    }

    private static void writeBody(Writer w, Message body) {
        switch (body.type()) {
            case PING, HOP_ACK, LEAVE, CHALLENGE, CHALLENGE_ANSWER, WELCOME -> {
            }
            case HELLO -> w.nonNegativeI32(((Hello) body).version(), "version");
            case PONG -> {
                writeContacts(w, ((Pong) body).suggestions(), "suggestions");
                w.nonNegativeI64(((Pong) body).senderMillis(), "senderMillis");
            }
            case JOIN_REQUEST -> {
                JoinRequest m = (JoinRequest) body;
                w.contact(m.joiner(), "joiner");
                w.i64(m.originRequestId());
                w.hops(m.hops());
            }
            case JOIN_INFO -> {
                JoinInfo m = (JoinInfo) body;
                writeContacts(w, m.contacts(), "contacts");
                w.bool(m.fromRoot());
            }
            case LEAF_EXCHANGE -> writeContacts(w, ((LeafExchange) body).leafSet(), "leafSet");
            case LEAF_EXCHANGE_REPLY -> writeContacts(w, ((LeafExchangeReply) body).leafSet(), "leafSet");
            case PUT_REQUEST -> {
                PutRequest m = (PutRequest) body;
                w.id(m.key(), "key");
                w.bytes(m.value(), VALUE_BYTES_MAX, "value");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.nonNegativeI64(m.expiresAtMillis(), "expiresAtMillis");
                w.bytes(m.binding(), HASH_BYTES_MAX, "binding");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
            }
            case GET_REQUEST -> {
                GetRequest m = (GetRequest) body;
                w.id(m.key(), "key");
                w.routing(m.routing());
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
                w.bool(m.wantHolders());
                writeCost(w, m.cost());
                w.nonNegativeI32(m.readQuorum(), "readQuorum");
            }
            case REMOVE_REQUEST -> {
                RemoveRequest m = (RemoveRequest) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
            }
            case PUT_REPLY -> {
                PutReply m = (PutReply) body;
                w.status(m.status());
                w.nonNegativeI32(m.replicas(), "replicas");
                w.string(m.detail(), "detail");
            }
            case GET_REPLY -> {
                GetReply m = (GetReply) body;
                w.status(m.status());
                writeValueEntries(w, m.values());
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.hops(m.hops());
                w.string(m.detail(), "detail");
                writeCost(w, m.cost());
                writeContacts(w, m.holders(), "holders");
                w.nonNegativeI32(m.replicasRead(), "replicasRead");
            }
            case ITERATIVE_GET -> {
                IterativeGet m = (IterativeGet) body;
                w.id(m.key(), "key");
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.bool(m.wantHolders());
            }
            case ITERATIVE_GET_REPLY -> {
                IterativeGetReply m = (IterativeGetReply) body;
                w.status(m.status());
                w.bool(m.answered());
                writeValueEntries(w, m.values());
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                writeContacts(w, m.contacts(), "contacts");
            }
            case REMOVE_REPLY -> {
                RemoveReply m = (RemoveReply) body;
                w.status(m.status());
                w.string(m.detail(), "detail");
            }
            case STORE_REPLICAS -> writeReplicaRecords(w, ((StoreReplicas) body).records());
            case REPLICA_READ -> {
                ReplicaRead m = (ReplicaRead) body;
                w.id(m.key(), "key");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(m.maxRecords(), "maxRecords");
            }
            case REPLICA_READ_REPLY -> {
                ReplicaReadReply m = (ReplicaReadReply) body;
                writeReplicaRecords(w, m.records());
                w.bool(m.more());
            }
            case STORE_ACK -> w.nonNegativeI32(((StoreAck) body).accepted(), "accepted");
            case REMOVE_REPLICA -> {
                RemoveReplica m = (RemoveReplica) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
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
            case CLIENT_PUT -> {
                ClientPut m = (ClientPut) body;
                w.id(m.key(), "key");
                w.bytes(m.value(), VALUE_BYTES_MAX, "value");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.bytes(m.binding(), HASH_BYTES_MAX, "binding");
            }
            case CLIENT_GET -> {
                ClientGet m = (ClientGet) body;
                w.id(m.key(), "key");
                w.routing(m.routing());
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(m.parallelism(), "parallelism");
                w.bool(m.wantHolders());
                w.bool(m.oneHop());
                w.consistency(m.consistency());
                w.nonNegativeI32(m.readReplicas(), "readReplicas");
            }
            case CLIENT_REMOVE -> {
                ClientRemove m = (ClientRemove) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
            }
            case ERROR_REPLY -> {
                ErrorReply m = (ErrorReply) body;
                w.status(m.status());
                w.string(m.detail(), "detail");
                w.nonNegativeI32(m.retryAfterMillis(), "retryAfterMillis");
            }
            default -> throw new IllegalStateException("no encoding for message type " + body.type());
        }
    }

    private static void writeValueEntries(Writer w, List<ValueEntry> values) {
        w.count(values, "values");
        for (int i = 0, n = values.size(); i < n; i++) {
            ValueEntry e = values.get(i);
            w.bytes(e.value(), VALUE_BYTES_MAX, "value");
            w.nonNegativeI64(e.ttlRemainingMillis(), "ttlRemainingMillis");
        }
    }

    private static void writeReplicaRecords(Writer w, List<ReplicaRecord> records) {
        w.count(records, "records");
        for (int i = 0, n = records.size(); i < n; i++) {
            ReplicaRecord r = records.get(i);
            w.id(r.key(), "key");
            w.bytes(r.valueHash(), HASH_BYTES_MAX, "valueHash");
            w.bytes(r.value(), VALUE_BYTES_MAX, "value");
            w.nonNegativeI64(r.expiresAtMillis(), "expiresAtMillis");
            w.bytes(r.binding(), HASH_BYTES_MAX, "binding");
            w.bytes(r.secret(), SECRET_BYTES_MAX, "secret");
            w.bool(r.tombstone());
        }
    }

    private static void writeCost(Writer w, Cost cost) {
        w.nonNegativeI32(cost.messages(), "cost.messages");
        w.nonNegativeI64(cost.bytes(), "cost.bytes");
    }

    private static void writeContacts(Writer w, List<Contact> contacts, String field) {
        w.count(contacts, field);
        for (int i = 0, n = contacts.size(); i < n; i++) {
            w.contact(contacts.get(i), field);
        }
    }

    private static void writeDigestEntries(Writer w, List<DigestEntry> entries) {
        w.count(entries, "entries");
        for (int i = 0, n = entries.size(); i < n; i++) {
            DigestEntry e = entries.get(i);
            w.id(e.key(), "key");
            w.bytes(e.valueHash(), HASH_BYTES_MAX, "valueHash");
            w.bool(e.tombstone());
        }
    }

    private static void writeRangeSums(Writer w, List<RangeSum> parts) {
        w.count(parts, "parts");
        for (int i = 0, n = parts.size(); i < n; i++) {
            RangeSum p = parts.get(i);
            w.nonNegativeI32(p.count(), "count");
            w.i64(p.hash());
        }
    }

    // ---- decoding: the switch is exhaustive, so a new MessageType without a decoding does not compile ----

    private static Envelope readEnvelope(Reader r) {
        int version = r.u8("version");
        if (version != VERSION) {
            throw new CodecException("unsupported version " + version + ": this node speaks version " + VERSION
                    + (version < VERSION ? " (the sender runs an older Rattan: upgrade it)" : "")
                    + "; see docs/protocol.md#versioning");
        }
        int tag = r.u8("type tag");
        MessageType type = MessageType.fromTag(tag);
        if (type == null) {
            throw new CodecException("unknown message type tag " + tag);
        }
        int flags = r.u8("flags");
        if ((flags & ~FLAG_SENDER) != 0) {
            throw new CodecException("unknown flags 0x" + Integer.toHexString(flags));
        }
        Contact sender = (flags & FLAG_SENDER) != 0 ? r.contact("sender") : null;
        long requestId = r.i64("requestId");
        return new Envelope(sender, requestId, readBody(r, type));
    }

    // Java evaluates arguments left to right, so each constructor call below reads its fields in wire order.
    private static Message readBody(Reader r, MessageType type) {
        return switch (type) {
            case PING -> new Ping();
            case PONG -> new Pong(readContacts(r, "suggestions"), r.nonNegativeI64("senderMillis"));
            case HOP_ACK -> new HopAck();
            case HELLO -> new Hello(r.nonNegativeI32("version"));
            case CHALLENGE -> new Challenge();
            case CHALLENGE_ANSWER -> new ChallengeAnswer();
            case WELCOME -> new Welcome();
            case LEAVE -> new Leave();
            case JOIN_REQUEST -> new JoinRequest(r.contact("joiner"), r.i64("originRequestId"), r.hops());
            case JOIN_INFO -> new JoinInfo(readContacts(r, "contacts"), r.bool("fromRoot"));
            case LEAF_EXCHANGE -> new LeafExchange(readContacts(r, "leafSet"));
            case LEAF_EXCHANGE_REPLY -> new LeafExchangeReply(readContacts(r, "leafSet"));
            case PUT_REQUEST -> new PutRequest(r.id("key"), r.bytes(VALUE_BYTES_MAX, "value"),
                    r.nonNegativeI32("ttlSeconds"), r.nonNegativeI64("expiresAtMillis"),
                    r.bytes(HASH_BYTES_MAX, "binding"), r.contact("origin"), r.i64("originRequestId"), r.hops());
            case GET_REQUEST -> new GetRequest(r.id("key"), r.routing(), r.nonNegativeI32("maxValues"),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.contact("origin"), r.i64("originRequestId"), r.hops(),
                    r.bool("wantHolders"), readCost(r), r.nonNegativeI32("readQuorum"));
            case REMOVE_REQUEST -> new RemoveRequest(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"), r.contact("origin"),
                    r.i64("originRequestId"), r.hops());
            case PUT_REPLY -> new PutReply(r.status(), r.nonNegativeI32("replicas"), r.string("detail"));
            case GET_REPLY -> new GetReply(r.status(), readValueEntries(r), r.bytes(HASH_BYTES_MAX, "placemark"),
                    r.hops(), r.string("detail"), readCost(r), readContacts(r, "holders"),
                    r.nonNegativeI32("replicasRead"));
            case ITERATIVE_GET -> new IterativeGet(r.id("key"), r.nonNegativeI32("maxValues"),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.bool("wantHolders"));
            case ITERATIVE_GET_REPLY -> new IterativeGetReply(r.status(), r.bool("answered"), readValueEntries(r),
                    r.bytes(HASH_BYTES_MAX, "placemark"), readContacts(r, "contacts"));
            case REMOVE_REPLY -> new RemoveReply(r.status(), r.string("detail"));
            case STORE_REPLICAS -> new StoreReplicas(readReplicaRecords(r));
            case REPLICA_READ -> new ReplicaRead(r.id("key"), r.bytes(HASH_BYTES_MAX, "placemark"),
                    r.nonNegativeI32("maxRecords"));
            case REPLICA_READ_REPLY -> new ReplicaReadReply(readReplicaRecords(r), r.bool("more"));
            case STORE_ACK -> new StoreAck(r.nonNegativeI32("accepted"));
            case REMOVE_REPLICA -> new RemoveReplica(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"));
            case REMOVE_REPLICA_REPLY -> new RemoveReplicaReply(r.status());
            case DIGEST -> new Digest(readDigestEntries(r));
            case DIGEST_WANT -> new DigestWant(readDigestEntries(r));
            case RANGE_DIGEST -> new RangeDigest(r.id("lo"), r.id("hi"), r.bool("handoff"), readRangeSums(r));
            case RANGE_DIGEST_REPLY -> new RangeDigestReply(readRangeSums(r));
            case CLIENT_PUT -> new ClientPut(r.id("key"), r.bytes(VALUE_BYTES_MAX, "value"),
                    r.nonNegativeI32("ttlSeconds"), r.bytes(HASH_BYTES_MAX, "binding"));
            case CLIENT_GET -> new ClientGet(r.id("key"), r.routing(), r.nonNegativeI32("maxValues"),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.nonNegativeI32("parallelism"), r.bool("wantHolders"),
                    r.bool("oneHop"), r.consistency(), r.nonNegativeI32("readReplicas"));
            case CLIENT_REMOVE -> new ClientRemove(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"));
            case ERROR_REPLY -> new ErrorReply(r.status(), r.string("detail"), r.nonNegativeI32("retryAfterMillis"));
        };
    }

    private static Cost readCost(Reader r) {
        return new Cost(r.nonNegativeI32("cost.messages"), r.nonNegativeI64("cost.bytes"));
    }

    private static List<Contact> readContacts(Reader r, String field) {
        int n = r.count(CONTACT_BYTES_MIN, field);
        List<Contact> contacts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            contacts.add(r.contact(field));
        }
        return contacts;
    }

    private static List<ValueEntry> readValueEntries(Reader r) {
        int n = r.count(VALUE_ENTRY_BYTES_MIN, "values");
        List<ValueEntry> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(new ValueEntry(r.bytes(VALUE_BYTES_MAX, "value"), r.nonNegativeI64("ttlRemainingMillis")));
        }
        return values;
    }

    private static List<ReplicaRecord> readReplicaRecords(Reader r) {
        int n = r.count(REPLICA_RECORD_BYTES_MIN, "records");
        List<ReplicaRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            records.add(new ReplicaRecord(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(VALUE_BYTES_MAX, "value"), r.nonNegativeI64("expiresAtMillis"),
                    r.bytes(HASH_BYTES_MAX, "binding"), r.bytes(SECRET_BYTES_MAX, "secret"), r.bool("tombstone")));
        }
        return records;
    }

    private static List<DigestEntry> readDigestEntries(Reader r) {
        int n = r.count(DIGEST_ENTRY_BYTES_MIN, "entries");
        List<DigestEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new DigestEntry(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"), r.bool("tombstone")));
        }
        return entries;
    }

    private static List<RangeSum> readRangeSums(Reader r) {
        int n = r.count(RANGE_SUM_BYTES, "parts");
        List<RangeSum> parts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parts.add(new RangeSum(r.nonNegativeI32("count"), r.i64("hash")));
        }
        return parts;
    }

    /**
     * Writes fields at a cursor, checking each against its bound. With no buffer it only advances the cursor, which
     * is how {@link #encodedSize} measures a frame with the very code that writes it.
     */
    private static final class Writer {
        private final byte[] buf;
        private int pos;

        Writer(byte[] buf) {
            this(buf, 0);
        }

        Writer(byte[] buf, int pos) {
            this.buf = buf;
            this.pos = pos;
        }

        void u8(int v) {
            if (buf != null) {
                buf[pos] = (byte) v;
            }
            pos += 1;
        }

        void u16(int v) {
            if (buf != null) {
                buf[pos] = (byte) (v >>> 8);
                buf[pos + 1] = (byte) v;
            }
            pos += 2;
        }

        void i32(int v) {
            if (buf != null) {
                buf[pos] = (byte) (v >>> 24);
                buf[pos + 1] = (byte) (v >>> 16);
                buf[pos + 2] = (byte) (v >>> 8);
                buf[pos + 3] = (byte) v;
            }
            pos += 4;
        }

        void i64(long v) {
            if (buf != null) {
                for (int i = 0; i < 8; i++) {
                    buf[pos + i] = (byte) (v >>> (56 - 8 * i));
                }
            }
            pos += 8;
        }

        void nonNegativeI32(int v, String field) {
            if (v < 0) {
                throw new CodecException(field + " is negative: " + v);
            }
            i32(v);
        }

        void nonNegativeI64(long v, String field) {
            if (v < 0) {
                throw new CodecException(field + " is negative: " + v);
            }
            i64(v);
        }

        void hops(int v) {
            if (v < 0 || v > HOPS_MAX) {
                throw new CodecException("hops out of range 0.." + HOPS_MAX + ": " + v);
            }
            i32(v);
        }

        void bool(boolean v) {
            u8(v ? 1 : 0);
        }

        void status(Status s) {
            u8(nonNull(s, "status").code());
        }

        void routing(RoutingMode m) {
            u8(nonNull(m, "routing").code());
        }

        void consistency(Consistency c) {
            u8(nonNull(c, "consistency").code());
        }

        void id(Id id, String field) {
            nonNull(id, field);
            if (buf != null) {
                id.writeTo(buf, pos);
            }
            pos += Id.BYTES;
        }

        void bytes(Bytes b, int lengthMax, String field) {
            int length = nonNull(b, field).length();
            if (length > lengthMax) {
                throw new CodecException(field + " of " + length + " bytes exceeds " + lengthMax);
            }
            i32(length);
            if (buf != null) {
                b.copyTo(buf, pos);
            }
            pos += length;
        }

        void count(List<?> list, String field) {
            int n = nonNull(list, field).size();
            if (n > LIST_COUNT_MAX) {
                throw new CodecException(field + " has " + n + " elements, more than " + LIST_COUNT_MAX);
            }
            u16(n);
        }

        void string(String s, String field) {
            int length = utf8Length(nonNull(s, field), field);
            if (length > STRING_BYTES_MAX) {
                throw new CodecException(field + " of " + length + " UTF-8 bytes exceeds " + STRING_BYTES_MAX);
            }
            u16(length);
            utf8(s, length);
        }

        void contact(Contact c, String field) {
            nonNull(c, field);
            id(c.id(), field);
            String host = c.address().host();
            int length = utf8Length(host, field);
            if (length > HOST_BYTES_MAX) {
                throw new CodecException(field + " host of " + length + " UTF-8 bytes exceeds " + HOST_BYTES_MAX);
            }
            u8(length);
            utf8(host, length);
            u16(c.address().port());
            u16(c.gatewayPort());
        }

        /** Writes a string already checked by {@link #utf8Length}, which is {@code length} bytes long. */
        private void utf8(String s, int length) {
            if (buf == null) {
                pos += length;
                return;
            }
            for (int i = 0, n = s.length(); i < n; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    buf[pos++] = (byte) c;
                } else if (c < 0x800) {
                    buf[pos++] = (byte) (0xC0 | (c >>> 6));
                    buf[pos++] = (byte) (0x80 | (c & 0x3F));
                } else if (Character.isHighSurrogate(c)) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    buf[pos++] = (byte) (0xF0 | (cp >>> 18));
                    buf[pos++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
                    buf[pos++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
                    buf[pos++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    buf[pos++] = (byte) (0xE0 | (c >>> 12));
                    buf[pos++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
                    buf[pos++] = (byte) (0x80 | (c & 0x3F));
                }
            }
        }

        /** UTF-8 length of {@code s}; an unpaired surrogate has no UTF-8 form, so it is refused. */
        private static int utf8Length(String s, String field) {
            int n = s.length();
            int length = n;
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    continue;
                }
                if (c < 0x800) {
                    length += 1;
                } else if (!Character.isSurrogate(c)) {
                    length += 2;
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    length += 2; // two chars, four bytes
                    i++;
                } else {
                    throw new CodecException(field + " has an unpaired surrogate at index " + i);
                }
            }
            return length;
        }

        private static <T> T nonNull(T value, String field) {
            if (value == null) {
                throw new CodecException(field + " is null");
            }
            return value;
        }
    }

    /** Reads fields at a cursor; checks the bytes left before every read and every bound before allocating. */
    private static final class Reader {
        private final byte[] buf;
        private final int end;
        private int pos;

        Reader(byte[] buf, int pos, int end) {
            this.buf = buf;
            this.pos = pos;
            this.end = end;
        }

        int remaining() {
            return end - pos;
        }

        private void need(int n, String field) {
            if (end - pos < n) {
                throw new CodecException("truncated frame: " + field + " needs " + n + " bytes, " + (end - pos)
                        + " left");
            }
        }

        int u8(String field) {
            need(1, field);
            return buf[pos++] & 0xFF;
        }

        int u16(String field) {
            need(2, field);
            int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
            pos += 2;
            return v;
        }

        int i32(String field) {
            need(4, field);
            int v = ((buf[pos] & 0xFF) << 24) | ((buf[pos + 1] & 0xFF) << 16) | ((buf[pos + 2] & 0xFF) << 8)
                    | (buf[pos + 3] & 0xFF);
            pos += 4;
            return v;
        }

        long i64(String field) {
            need(8, field);
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (buf[pos + i] & 0xFF);
            }
            pos += 8;
            return v;
        }

        int nonNegativeI32(String field) {
            int v = i32(field);
            if (v < 0) {
                throw new CodecException(field + " is negative: " + v);
            }
            return v;
        }

        long nonNegativeI64(String field) {
            long v = i64(field);
            if (v < 0) {
                throw new CodecException(field + " is negative: " + v);
            }
            return v;
        }

        int hops() {
            int v = i32("hops");
            if (v < 0 || v > HOPS_MAX) {
                throw new CodecException("hops out of range 0.." + HOPS_MAX + ": " + v);
            }
            return v;
        }

        boolean bool(String field) {
            int v = u8(field);
            if (v > 1) {
                throw new CodecException("boolean " + field + " is " + v + ", not 0 or 1");
            }
            return v == 1;
        }

        RoutingMode routing() {
            int code = u8("routing");
            RoutingMode m = RoutingMode.fromCode(code);
            if (m == null) {
                throw new CodecException("unknown routing mode " + code);
            }
            return m;
        }

        Consistency consistency() {
            int code = u8("consistency");
            Consistency c = Consistency.fromCode(code);
            if (c == null) {
                throw new CodecException("unknown consistency " + code);
            }
            return c;
        }

        Status status() {
            int code = u8("status");
            Status s = Status.fromCode(code);
            if (s == null) {
                throw new CodecException("unknown status code " + code);
            }
            return s;
        }

        Id id(String field) {
            need(Id.BYTES, field);
            Id id = Id.fromBytes(buf, pos);
            pos += Id.BYTES;
            return id;
        }

        Bytes bytes(int lengthMax, String field) {
            // Read as signed: a length of 2^31 or more is negative here and refused with the rest.
            int length = i32(field);
            if (length < 0 || length > lengthMax) {
                throw new CodecException(field + " length " + Integer.toUnsignedString(length) + " exceeds "
                        + lengthMax);
            }
            need(length, field);
            Bytes b = Bytes.of(buf, pos, length);
            pos += length;
            return b;
        }

        /** A list count, checked so that even elements of the smallest encoding would fit in the bytes left. */
        int count(int elementBytesMin, String field) {
            int n = u16(field);
            if (n > LIST_COUNT_MAX) {
                throw new CodecException(field + " count " + n + " exceeds " + LIST_COUNT_MAX);
            }
            if ((long) n * elementBytesMin > end - pos) {
                throw new CodecException(field + " count " + n + " cannot fit in the " + (end - pos)
                        + " bytes left");
            }
            return n;
        }

        String string(String field) {
            int length = u16(field);
            if (length > STRING_BYTES_MAX) {
                throw new CodecException(field + " of " + length + " bytes exceeds " + STRING_BYTES_MAX);
            }
            return utf8(length, field);
        }

        Contact contact(String field) {
            Id id = id(field);
            int hostLength = u8(field);
            if (hostLength == 0) {
                throw new CodecException(field + " has an empty host");
            }
            String host = utf8(hostLength, field);
            int port = u16(field);
            int gatewayPort = u16(field);
            return new Contact(id, new Address(host, port), gatewayPort);
        }

        private String utf8(int length, String field) {
            need(length, field);
            int start = pos;
            pos += length;
            for (int i = start; i < start + length; i++) {
                if (buf[i] < 0) {
                    return strictUtf8(start, length, field);
                }
            }
            // All ASCII: the cheapest decoding there is.
            return new String(buf, start, length, StandardCharsets.ISO_8859_1);
        }

        /** Decodes refusing malformed UTF-8 (overlong forms, encoded surrogates, truncated sequences). */
        private String strictUtf8(int start, int length, String field) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(buf, start, length))
                        .toString();
            } catch (CharacterCodingException e) {
                throw new CodecException(field + " is not well-formed UTF-8", e);
            }
        }
    }
}
