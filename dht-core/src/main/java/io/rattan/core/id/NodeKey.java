package io.rattan.core.id;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.util.random.RandomGenerator;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * A node's identity: an Ed25519 key pair whose public key's SHA-1 is the node's id, so that an id cannot be chosen,
 * only drawn, and a node proves it owns its id by signing (the peer handshake's answer, docs/protocol.md). Signing
 * is deterministic (RFC 8032), so the simulator derives its nodes' keys, and ids, from its seed. Immutable and
 * thread-safe.
 */
public final class NodeKey {

    /** The length of a private key (its RFC 8032 seed). */
    public static final int SEED_BYTES = Ed25519.SECRET_KEY_SIZE;
    /** The length of a public key. */
    public static final int PUBLIC_KEY_BYTES = Ed25519.PUBLIC_KEY_SIZE;
    /** The length of a signature. */
    public static final int SIGNATURE_BYTES = Ed25519.SIGNATURE_SIZE;

    private final byte[] seed;
    private final Bytes publicKey;
    private final Id id;

    private NodeKey(byte[] seed) {
        this.seed = seed;
        byte[] pk = new byte[PUBLIC_KEY_BYTES];
        Ed25519.generatePublicKey(seed, 0, pk, 0);
        this.publicKey = Bytes.wrap(pk);
        this.id = idOf(publicKey);
    }

    /** The key pair of a 32-byte private key (an RFC 8032 seed). */
    public static NodeKey ofSeed(Bytes seed) {
        if (seed.length() != SEED_BYTES) {
            throw new IllegalArgumentException("an Ed25519 private key is 32 bytes, got " + seed.length());
        }
        return new NodeKey(seed.toByteArray());
    }

    /** A key pair whose seed is drawn from {@code random}: a secure source for a node, a seeded one in simulation. */
    public static NodeKey draw(RandomGenerator random) {
        byte[] seed = new byte[SEED_BYTES];
        random.nextBytes(seed);
        return new NodeKey(seed);
    }

    /** The id a public key names: its SHA-1. */
    public static Id idOf(Bytes publicKey) {
        return Id.sha1(publicKey.toByteArray());
    }

    /** Whether {@code signature} is {@code publicKey}'s over {@code message}; false for a malformed key. */
    public static boolean verifies(Bytes publicKey, byte[] message, Bytes signature) {
        if (publicKey.length() != PUBLIC_KEY_BYTES || signature.length() != SIGNATURE_BYTES) {
            return false;
        }
        return Ed25519.verify(signature.toByteArray(), 0, publicKey.toByteArray(), 0, message, 0, message.length);
    }

    /** The node id: SHA-1 of {@link #publicKey}. */
    public Id id() {
        return id;
    }

    /** The public key, 32 bytes. */
    public Bytes publicKey() {
        return publicKey;
    }

    /** The private key (the seed), to be written to the node's key file and nowhere else. */
    public Bytes seed() {
        return Bytes.of(seed);
    }

    /** Signs {@code message}. */
    public Bytes sign(byte[] message) {
        byte[] sig = new byte[SIGNATURE_BYTES];
        // With the public key given, BouncyCastle does not derive it again for every signature.
        Ed25519.sign(seed, 0, publicKey.toByteArray(), 0, message, 0, message.length, sig, 0);
        return Bytes.wrap(sig);
    }

    /** Names the id only: a key's text must never carry its private half into a log. */
    @Override
    public String toString() {
        return "NodeKey[" + id + "]";
    }
}
