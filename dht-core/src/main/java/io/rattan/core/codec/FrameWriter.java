package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HOPS_MAX;
import static io.rattan.core.codec.MessageCodec.HOST_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.LIST_COUNT_MAX;
import static io.rattan.core.codec.MessageCodec.STRING_BYTES_MAX;

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
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Writes fields at a cursor, checking each against its bound. With no buffer it only advances the cursor, which
 * is how {@link MessageCodec#encodedSize} measures a frame with the very code that writes it.
 */
final class FrameWriter {
    private final byte[] buf;
    private int pos;
    private int version = MessageCodec.VERSION;

    FrameWriter(byte[] buf) {
        this(buf, 0);
    }

    FrameWriter(byte[] buf, int pos) {
        this.buf = buf;
        this.pos = pos;
    }

    /** The protocol version of the frame: a body whose fields differ by version writes this one's. */
    int version() {
        return version;
    }

    FrameWriter version(int v) {
        this.version = v;
        return this;
    }

    /** The cursor: where the next field goes, or with no buffer how many bytes were counted. */
    int position() {
        return pos;
    }

    /** The buffer written into; null when only sizing. */
    byte[] buffer() {
        return buf;
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

    /**
     * An owner stamp, or none: u8 0; or u8 1, then the owner (32 bytes), the value id, the sequence and the expiry
     * (8 bytes each) and the signature (64 bytes).
     */
    /** A presence byte, then the public key (32 bytes) and the signature (64 bytes). */
    void proof(IdProof p) {
        bool(p != null);
        if (p != null) {
            if (p.publicKey().length() != NodeKey.PUBLIC_KEY_BYTES
                    || p.signature().length() != NodeKey.SIGNATURE_BYTES) {
                throw new CodecException("a proof is a 32-byte public key and a 64-byte signature");
            }
            fixed(p.publicKey());
            fixed(p.signature());
        }
    }

    void stamp(OwnerStamp s) {
        if (s == null) {
            u8(0);
            return;
        }
        u8(1);
        fixed(s.owner());
        i64(s.valueId());
        i64(s.seq());
        nonNegativeI64(s.expiresAtSeconds(), "expiresAtSeconds");
        fixed(s.signature());
    }

    /** A put's condition: u8 kind (0 none, 1 absent, 2 sequence), then the sequence (0 unless kind 2). */
    void condition(PutCondition c) {
        u8(nonNull(c, "condition").kind().code());
        i64(c.seq());
    }

    /**
     * A get's value filter: u8 0, none; u8 1, then the owner (32 bytes); or u8 2, then the owner and the value id (8
     * bytes). A get without a filter, the common one, costs one byte.
     */
    void filter(ValueFilter f) {
        nonNull(f, "filter");
        u8(f.isNone() ? 0 : f.valueId() == null ? 1 : 2);
        if (!f.isNone()) {
            fixed(f.owner());
        }
        if (f.valueId() != null) {
            i64(f.valueId());
        }
    }

    /** An optional unsigned number: u8 0; or u8 1 and the number. */
    void optionalLong(Long v) {
        u8(v == null ? 0 : 1);
        if (v != null) {
            i64(v);
        }
    }

    /** Bytes of a length the field fixes, so no length travels. */
    void fixed(Bytes b) {
        if (buf != null) {
            b.copyTo(buf, pos);
        }
        pos += b.length();
    }

    void count(List<?> list, String field) {
        int n = nonNull(list, field).size();
        if (n > LIST_COUNT_MAX) {
            throw new CodecException(field + " has " + n + " elements, more than " + LIST_COUNT_MAX);
        }
        u16(n);
    }

    /** A list: its count, then each element as {@code element} writes it. */
    <T> void list(List<T> list, String field, BiConsumer<FrameWriter, T> element) {
        count(list, field);
        for (int i = 0, n = list.size(); i < n; i++) {
            element.accept(this, list.get(i));
        }
    }

    void contacts(List<Contact> contacts, String field) {
        list(contacts, field, (w, c) -> w.contact(c, field));
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
