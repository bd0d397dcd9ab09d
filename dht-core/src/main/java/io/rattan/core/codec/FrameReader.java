package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HOPS_MAX;
import static io.rattan.core.codec.MessageCodec.LIST_COUNT_MAX;
import static io.rattan.core.codec.MessageCodec.STRING_BYTES_MAX;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.net.Contact;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;

/** Reads fields at a cursor; checks the bytes left before every read and every bound before allocating. */
final class FrameReader {
    // The smallest encoding of a contact, so that a claimed count can be checked against the bytes left.
    static final int CONTACT_BYTES_MIN = Id.BYTES + 1 + 1 + 2 + 2;

    private final byte[] buf;
    private final int end;
    private int pos;
    private int version = MessageCodec.VERSION;

    FrameReader(byte[] buf, int pos, int end) {
        this.buf = buf;
        this.pos = pos;
        this.end = end;
    }

    /** The protocol version of the frame, once its first byte is read: a body whose fields differ reads its own. */
    int version() {
        return version;
    }

    void version(int v) {
        this.version = v;
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
        return coded("routing", RoutingMode::fromCode, "unknown routing mode ");
    }

    Consistency consistency() {
        return coded("consistency", Consistency::fromCode, "unknown consistency ");
    }

    Status status() {
        return coded("status", Status::fromCode, "unknown status code ");
    }

    /** A u8 code of an enum; {@code fromCode} answers null for a code it does not know, which is an error. */
    private <T> T coded(String field, IntFunction<T> fromCode, String unknown) {
        int code = u8(field);
        T value = fromCode.apply(code);
        if (value == null) {
            throw new CodecException(unknown + code);
        }
        return value;
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

    /** An owner stamp as {@link FrameWriter#stamp} writes it; null for none. */
    /** A proof as {@code FrameWriter#proof} writes it, or null when absent. */
    IdProof proof() {
        if (!bool("proof")) {
            return null;
        }
        return new IdProof(fixed(NodeKey.PUBLIC_KEY_BYTES, "proof.publicKey"),
                fixed(NodeKey.SIGNATURE_BYTES, "proof.signature"));
    }

    OwnerStamp stamp() {
        int present = u8("stamp");
        if (present == 0) {
            return null;
        }
        if (present != 1) {
            throw new CodecException("stamp marker is " + present + ", not 0 or 1");
        }
        Bytes owner = fixed(OwnerStamp.OWNER_BYTES, "owner");
        long valueId = i64("valueId");
        long seq = i64("seq");
        long expiresAtSeconds = nonNegativeI64("expiresAtSeconds");
        if (expiresAtSeconds > OwnerStamp.EXPIRES_AT_SECONDS_MAX) {
            throw new CodecException("expiresAtSeconds " + expiresAtSeconds + " exceeds "
                    + OwnerStamp.EXPIRES_AT_SECONDS_MAX);
        }
        return new OwnerStamp(owner, valueId, seq, expiresAtSeconds, fixed(OwnerStamp.SIGNATURE_BYTES, "signature"));
    }

    /** A put's condition as {@link FrameWriter#condition} writes it. */
    PutCondition condition() {
        PutCondition.Kind kind = coded("condition", PutCondition.Kind::fromCode, "unknown condition ");
        long seq = i64("condition.seq");
        if (kind != PutCondition.Kind.SEQ && seq != 0) {
            throw new CodecException("a condition of kind " + kind + " names sequence " + seq);
        }
        return new PutCondition(kind, seq);
    }

    /** A get's value filter as {@link FrameWriter#filter} writes it. */
    ValueFilter filter() {
        int kind = u8("filter");
        if (kind > 2) {
            throw new CodecException("filter kind is " + kind + ", not 0, 1 or 2");
        }
        if (kind == 0) {
            return ValueFilter.NONE;
        }
        Bytes owner = fixed(OwnerStamp.OWNER_BYTES, "filter.owner");
        return kind == 1 ? ValueFilter.owner(owner) : ValueFilter.value(owner, i64("filter.valueId"));
    }

    /** An optional number as {@link FrameWriter#optionalLong} writes it. */
    Long optionalLong(String field) {
        int present = u8(field);
        if (present > 1) {
            throw new CodecException(field + " marker is " + present + ", not 0 or 1");
        }
        return present == 1 ? i64(field) : null;
    }

    /** Bytes of a length the field fixes, so no length travels. */
    Bytes fixed(int length, String field) {
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

    /** A list of {@link #count} elements, each read by {@code element}. */
    <T> List<T> list(int elementBytesMin, String field, Function<FrameReader, T> element) {
        int n = count(elementBytesMin, field);
        List<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(element.apply(this));
        }
        return list;
    }

    List<Contact> contacts(String field) {
        return list(CONTACT_BYTES_MIN, field, r -> r.contact(field));
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
