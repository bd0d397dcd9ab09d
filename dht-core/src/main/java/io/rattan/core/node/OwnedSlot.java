package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.core.owned.SignedBytes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Where one owned value lives under its key: {@code SHA-256("rattan-slot-v1" ‖ len ‖ namespace ‖ owner ‖ valueId)},
 * 32 bytes. The store names an unowned value by SHA-256 of its bytes, so every version of the same value gets a new
 * name; an owned value keeps its slot's name through all its sequences, and a higher sequence overwrites the lower
 * in place, so the store, the replica copies and the repair digests keep working on (key, 32-byte name) pairs. No
 * value's bytes can be made to hash to a slot's name (that would be a SHA-256 preimage).
 */
final class OwnedSlot {

    private static final byte[] PREFIX = "rattan-slot-v1".getBytes(StandardCharsets.US_ASCII);

    private OwnedSlot() {
    }

    /** The slot of (namespace, owner, value id). */
    public static Bytes of(String namespace, Bytes owner, long valueId) {
        byte[] ns = SignedBytes.namespaceBytes(namespace);
        ByteBuffer b = ByteBuffer.allocate(PREFIX.length + 1 + ns.length + owner.length() + Long.BYTES);
        b.put(PREFIX).put((byte) ns.length).put(ns).put(owner.toByteArray()).putLong(valueId);
        return Bytes.wrap(Bytes.sha256(b.array()));
    }
}
