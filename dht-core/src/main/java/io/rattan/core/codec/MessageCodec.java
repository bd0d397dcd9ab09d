package io.rattan.core.codec;

import io.rattan.api.Consistency;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;
import java.util.Objects;

/**
 * The binary codec of the peer and client protocols: one {@link Envelope} per frame. This class comment is the
 * protocol specification.
 *
 * <h2>Framing</h2>
 * A frame body is what {@link #encode} returns. Transports send each body after a 4-byte big-endian length, which is
 * not part of the body; a receiver rejects a length above its {@link #frameBytesMax()} before reading the body.
 *
 * <h2>Frame body, version 14</h2>
 * All integers are big-endian and fixed width; there are no varints, so each value has exactly one encoding.
 * <pre>
 * u8    version      the codec's {@link #version()}; a decoder accepts its own and older ones down to
 *                    {@link #VERSION_OLDEST} (a rolling upgrade)
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
 * RoutingMode u8 {@link io.rattan.api.RoutingMode#code()} (0 greedy, 1 delay-aware), right after the key of
 *           GetRequest and ClientGet
 * Consistency u8 {@link Consistency#code()} (0 one, 1 quorum), in ClientGet
 * List      u16 count, then the elements; at most {@value #LIST_COUNT_MAX} elements
 * Contact   Id, then host as u8 length (1..{@value #HOST_BYTES_MAX}) and UTF-8 bytes, then u16 port, then u16
 *           gatewayPort (the node's binary client gateway on the same host; 0: none)
 * OwnerStamp u8 0 (none), or u8 1 then owner (32 bytes), valueId, seq (i64, read as unsigned), expiresAtSeconds
 *           (0..Long.MAX_VALUE / 1000) and signature (64 bytes); in ClientPut, PutRequest, ValueEntry, ReplicaRecord
 * ValueFilter u8 0 (none); u8 1 then owner (32 bytes); or u8 2 then owner (32 bytes) and valueId (i64, unsigned);
 *           at the end of ClientGet, GetRequest, IterativeGet and ReplicaRead
 * records   ValueEntry, ReplicaRecord, DigestEntry, RangeSum: their fields in declaration order
 * WatchKind u8 {@link io.rattan.core.msg.WatchKind#code()}, in WatchEvent, whose ValueEntry is written as its
 *           fields in place
 * </pre>
 * Per-field bounds:
 * <pre>
 * value                           at most {@value #VALUE_BYTES_MAX} bytes (a node's own limit is at most this)
 * valueHash, binding, placemark   at most {@value #HASH_BYTES_MAX} bytes
 * secret (removes, tombstones)    at most {@value #SECRET_BYTES_MAX} bytes
 * hops                            0..{@value #HOPS_MAX}
 * ttlSeconds, maxValues, replicas, accepted, expiresAtMillis, ttlRemainingMillis, senderMillis, RangeSum.count,
 * retryAfterMillis, readReplicas, readQuorum, replicasRead, maxRecords, maxNodes, leaseMillis, changesSent,
 * number, resumeSeq, seq   at least 0
 * </pre>
 * Every field of every record must be non-null; only the envelope's sender and owner stamps are optional.
 *
 * <h2>Hostile input</h2>
 * The decoder checks every length against both the bytes left in the frame and the field's bound before it
 * allocates anything, and a list count times the smallest encoding of one element against the bytes left, so a
 * short frame cannot make it allocate much. A frame must be consumed exactly: trailing bytes are an error. Any
 * malformed frame yields a {@link CodecException} and nothing else. The encoder refuses exactly what the decoder
 * would reject, and the encoding is canonical within a version: {@code at(v).encode(decode(frame))} equals
 * {@code frame} for a frame of version {@code v}.
 *
 * <h2>Where the code is</h2>
 * This class writes and reads the header and picks each body's family by type; the field encodings are in
 * {@link FrameWriter} and {@link FrameReader}, and the bodies in one package-private class per family of messages:
 * {@link MembershipBodies} (liveness, handshake, join, leaf set), {@link RequestBodies} (routed put, get, remove,
 * iterative get, and their replies), {@link ReplicaBodies} (replica copies, digests, range sync) and
 * {@link GatewayBodies} (client gateway requests, the ring page and the error reply), {@link WatchBodies} (watches,
 * at the replicas and at the gateway) and {@link NamespaceBodies} (a namespace's messages, its definitions).
 *
 * <p>Immutable and thread-safe: any thread may call any method.
 */
public final class MessageCodec {

    /** The newest protocol version, carried in the first byte of every frame this build writes by default. */
    public static final int VERSION = 17;
    /**
     * The oldest protocol version this build can still speak: a node or client may be told to speak it (during a
     * rolling upgrade), and one speaking {@link #VERSION} accepts it.
     */
    public static final int VERSION_OLDEST = 14;
    /** The first version whose replicas acknowledge their tombstones to a remove's gateway ({@code REMOVE_ACK}). */
    public static final int VERSION_REMOVE_ACKS = 15;
    /** The first version whose puts carry their origin's signature, which a key's root requires. */
    public static final int VERSION_ORIGIN_PROOFS = 17;
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

    private final int frameBytesMax;
    private final int version;

    /** A codec of {@link #VERSION} that accepts frames up to {@link #DEFAULT_FRAME_BYTES_MAX}. */
    public MessageCodec() {
        this(DEFAULT_FRAME_BYTES_MAX);
    }

    /**
     * A codec of {@link #VERSION} that refuses to encode or decode frame bodies above {@code frameBytesMax} bytes.
     *
     * @throws IllegalArgumentException if {@code frameBytesMax} is not positive
     */
    public MessageCodec(int frameBytesMax) {
        this(frameBytesMax, VERSION);
    }

    /**
     * A codec that writes {@code version} and accepts it and the older ones down to {@link #VERSION_OLDEST}: so a node
     * told to speak 14 accepts only that one, as a build of 14 does.
     *
     * @throws IllegalArgumentException if {@code frameBytesMax} is not positive or {@code version} is not spoken here
     */
    public MessageCodec(int frameBytesMax, int version) {
        if (frameBytesMax <= 0) {
            throw new IllegalArgumentException("frameBytesMax must be positive: " + frameBytesMax);
        }
        if (!isSpoken(version)) {
            throw new IllegalArgumentException("protocol version " + version + " is not spoken by this build: "
                    + VERSION_OLDEST + " to " + VERSION);
        }
        this.frameBytesMax = frameBytesMax;
        this.version = version;
    }

    /** A codec of {@code version} with the default frame limit: what a node or client told to speak it uses. */
    public static MessageCodec speaking(int version) {
        return new MessageCodec(DEFAULT_FRAME_BYTES_MAX, version);
    }

    /** Whether this build can speak {@code version}: {@link #VERSION_OLDEST} to {@link #VERSION}. */
    public static boolean isSpoken(int version) {
        return version >= VERSION_OLDEST && version <= VERSION;
    }

    /**
     * Whether frames of {@code version} carry messages of {@code type}: {@link MessageType#PUT_ACK} exists since 14,
     * {@link MessageType#REMOVE_ACK} since 15.
     * A transport drops a message its peer's version lacks rather than writing it (a replica's tombstone ack to a
     * gateway of 14).
     */
    public static boolean carries(MessageType type, int version) {
        return switch (type) {
            case PUT_ACK -> version >= ReplicaBodies.ACKS_SINCE;
            case REMOVE_ACK -> version >= ReplicaBodies.REMOVE_ACKS_SINCE;
            default -> true;
        };
    }

    /** The protocol version this codec writes. */
    public int version() {
        return version;
    }

    /** This codec's version and the older ones this build speaks ({@link #oldestAccepted}). */
    public boolean accepts(int frameVersion) {
        return frameVersion <= version && frameVersion >= oldestAccepted();
    }

    /**
     * The oldest version this codec accepts: {@link #VERSION_OLDEST}, whatever version it writes. Versions 15 and 16
     * share every byte (16 changed what a digest entry names and who may remove what, docs/protocol.md), so a node of
     * 16 still reads 14, as one of 15 does: each upgrade needs no more than one version back. 17 adds one field at the
     * end of a put (its origin's signature), read as absent from older frames, so it reads 14 too.
     */
    public int oldestAccepted() {
        return VERSION_OLDEST;
    }

    /** A codec with this one's frame limit that writes {@code frameVersion}, one this codec accepts. */
    public MessageCodec at(int frameVersion) {
        if (frameVersion == version) {
            return this;
        }
        if (!accepts(frameVersion)) {
            throw new IllegalArgumentException("version " + frameVersion + " is not accepted by a codec of " + version);
        }
        return new MessageCodec(frameBytesMax, frameVersion);
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
        FrameWriter w = new FrameWriter(new byte[size]).version(version);
        writeEnvelope(w, envelope);
        if (w.position() != size) {
            throw new IllegalStateException("encoder wrote " + w.position() + " bytes, sized " + size);
        }
        return w.buffer();
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
        FrameWriter w = new FrameWriter(dst, offset).version(version);
        writeEnvelope(w, envelope);
        if (w.position() != offset + size) {
            throw new IllegalStateException("encoder wrote " + (w.position() - offset) + " bytes, sized " + size);
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
        FrameWriter counter = new FrameWriter(null).version(version);
        writeEnvelope(counter, envelope);
        if (counter.position() > frameBytesMax) {
            throw new CodecException("frame of " + counter.position() + " bytes exceeds frameBytesMax " + frameBytesMax);
        }
        return counter.position();
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
            FrameReader r = new FrameReader(frame, offset, offset + length);
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

    // ---- encoding: one walk serves both sizing (no buffer) and writing ----

    private void writeEnvelope(FrameWriter w, Envelope envelope) {
        Message body = envelope.body();
        Contact sender = envelope.sender();
        w.u8(version);
        w.u8(body.type().tag());
        w.u8(sender != null ? FLAG_SENDER : 0);
        if (sender != null) {
            w.contact(sender, "sender");
        }
        w.i64(envelope.requestId());
        family(body.type()).write(w, body);
    }

    // ---- decoding ----

    private Envelope readEnvelope(FrameReader r) {
        int frameVersion = r.u8("version");
        // A node of V-1 writes its handshake in V-2, the oldest it reads: so that V can roll over V-1, V reads
        // handshake frames of V-2 too (each body reads the fields of its frame's version).
        boolean handshakeOnly = !accepts(frameVersion);
        if (handshakeOnly && frameVersion != oldestAccepted() - 1) {
            throw unsupported(frameVersion);
        }
        r.version(frameVersion);
        int tag = r.u8("type tag");
        MessageType type = MessageType.fromTag(tag);
        if (type == null) {
            throw new CodecException("unknown message type tag " + tag);
        }
        if (handshakeOnly && !isHandshake(type)) {
            throw unsupported(frameVersion);
        }
        if (!carries(type, frameVersion)) {
            throw new CodecException(type + " in a frame of version " + frameVersion + ", which has no such message");
        }
        int flags = r.u8("flags");
        if ((flags & ~FLAG_SENDER) != 0) {
            throw new CodecException("unknown flags 0x" + Integer.toHexString(flags));
        }
        Contact sender = (flags & FLAG_SENDER) != 0 ? r.contact("sender") : null;
        long requestId = r.i64("requestId");
        return new Envelope(sender, requestId, family(type).read(r, type));
    }

    private CodecException unsupported(int frameVersion) {
        return new CodecException("unsupported version " + frameVersion + ": this node speaks version " + version
                + (oldestAccepted() < version ? " and accepts " + oldestAccepted()
                + (oldestAccepted() < version - 1 ? " to " + (version - 1) : "") : "")
                + (frameVersion < version ? " (the sender runs an older Rattan: upgrade it)" : "")
                + "; see docs/protocol.md#versioning");
    }

    /** The peer handshake's frames, read in one version more than the rest (see {@link #readEnvelope}). */
    private static boolean isHandshake(MessageType type) {
        return switch (type) {
            case HELLO, CHALLENGE, CHALLENGE_ANSWER, WELCOME -> true;
            default -> false;
        };
    }

    // ---- the per-type dispatch: exhaustive, so a new MessageType without a family does not compile ----

    static BodyCodec family(MessageType type) {
        return switch (type) {
            case PING, PONG, HOP_ACK, HELLO, CHALLENGE, CHALLENGE_ANSWER, WELCOME, LEAVE, JOIN_REQUEST, JOIN_INFO,
                    LEAF_EXCHANGE, LEAF_EXCHANGE_REPLY -> MembershipBodies.INSTANCE;
            case PUT_REQUEST, GET_REQUEST, REMOVE_REQUEST, PUT_REPLY, GET_REPLY, ITERATIVE_GET, ITERATIVE_GET_REPLY,
                    REMOVE_REPLY -> RequestBodies.INSTANCE;
            case STORE_REPLICAS, REPLICA_READ, REPLICA_READ_REPLY, STORE_ACK, PUT_ACK, REMOVE_ACK, REMOVE_REPLICA,
                    REMOVE_REPLICA_REPLY, DIGEST, DIGEST_WANT, RANGE_DIGEST, RANGE_DIGEST_REPLY ->
                    ReplicaBodies.INSTANCE;
            case CLIENT_PUT, CLIENT_GET, CLIENT_REMOVE, CLIENT_RING, RING_REPLY, ERROR_REPLY -> GatewayBodies.INSTANCE;
            case WATCH, WATCH_ACK, WATCH_CHANGE, CLIENT_WATCH, CLIENT_UNWATCH, WATCH_EVENT -> WatchBodies.INSTANCE;
            case IN_NAMESPACE, NAMESPACE_DEFS, NAMESPACE_QUERY -> NamespaceBodies.INSTANCE;
        };
    }
}
