package io.rattan.core.owned;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.SignedOp;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The exact bytes an owner signs, pinned so that any language can sign (docs/http-api.md has a Python example):
 * the ASCII bytes {@code rattan-value-v1}; the op (1 put, 2 remove); one byte, the length of the namespace's UTF-8
 * name, then the name; the key (20 bytes); the value id, the sequence (8 bytes each, big-endian, unsigned); the
 * expiry in Unix seconds (8 bytes, big-endian); and SHA-256 of the data (32 bytes; of no bytes for a remove).
 */
public final class SignedBytes {

    /** The namespace every value lives in until namespaces exist. */
    public static final String DEFAULT_NAMESPACE = "default";
    /** SHA-256 of no bytes: the data hash a remove signs. */
    public static final Bytes EMPTY_DATA_HASH = Bytes.EMPTY.sha256();

    private static final byte[] PREFIX = "rattan-value-v1".getBytes(StandardCharsets.US_ASCII);
    private static final int HASH_BYTES = 32;

    private SignedBytes() {
    }

    /**
     * The signed bytes of one op.
     *
     * @throws IllegalArgumentException for a namespace of 0 or more than 255 UTF-8 bytes, a data hash that is not
     *                                  32 bytes, or a negative expiry
     */
    public static byte[] of(SignedOp op, String namespace, Id key, long valueId, long seq, long expiresAtSeconds,
                            Bytes dataHash) {
        byte[] ns = namespaceBytes(namespace);
        if (dataHash.length() != HASH_BYTES) {
            throw new IllegalArgumentException("data hash must be 32 bytes, got " + dataHash.length());
        }
        if (expiresAtSeconds < 0) {
            throw new IllegalArgumentException("expiry must be 0 or more Unix seconds, got " + expiresAtSeconds);
        }
        ByteBuffer b = ByteBuffer.allocate(PREFIX.length + 2 + ns.length + Id.BYTES + 3 * Long.BYTES + HASH_BYTES);
        b.put(PREFIX).put(op.code()).put((byte) ns.length).put(ns).put(key.toBytes());
        b.putLong(valueId).putLong(seq).putLong(expiresAtSeconds);
        dataHash.copyTo(b.array(), b.position());
        return b.array();
    }

    /** The namespace's UTF-8 name, checked to fit its one length byte (1..255 bytes). */
    public static byte[] namespaceBytes(String namespace) {
        byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
        if (ns.length == 0 || ns.length > 255) {
            throw new IllegalArgumentException("a namespace name is 1..255 UTF-8 bytes, got " + ns.length);
        }
        return ns;
    }
}
