package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The binding that makes a value removable: {@code SHA-256(secret ‖ key ‖ valueHash)}, where {@code key} is the
 * key's 20 bytes and {@code valueHash} is SHA-256 of the value bytes (the value's id everywhere in Rattan). A put
 * carries only the binding; a remove carries the secret, and every node that applies the remove checks that the
 * secret opens the binding it holds.
 *
 * <p>Why bound to the value: what a put shows the nodes it passes (the binding) opens nothing, since finding a secret
 * for a binding means inverting SHA-256; and the binding differs for every (key, value), so the same secret used
 * for many values gives unrelated bindings (no precomputed table serves two values, and no two values can be linked
 * by it). Since protocol version 6; before it, a put carried SHA-256 of the secret alone and a tombstone carried the
 * same hash, so any node that saw a put could remove its value.
 *
 * <p>Stateless and thread-safe.
 */
public final class SecretBinding {

    /** The length of a binding: one SHA-256. */
    public static final int BYTES = 32;

    private SecretBinding() {
    }

    /** {@code SHA-256(secret ‖ key ‖ valueHash)}. */
    public static Bytes of(Bytes secret, Id key, Bytes valueHash) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        sha.update(secret.toByteArray());
        sha.update(key.toBytes());
        sha.update(valueHash.toByteArray());
        return Bytes.wrap(sha.digest());
    }

    /** The binding of {@code value} put under {@code key} with {@code secret}; empty (not removable) for null. */
    public static Bytes ofValue(byte[] secret, Id key, Bytes value) {
        return secret == null ? Bytes.EMPTY : of(Bytes.of(secret), key, value.sha256());
    }

    /**
     * Whether {@code secret} opens {@code binding}, the binding held with the value {@code (key, valueHash)}. An
     * empty secret or binding opens nothing (a value put without a secret cannot be removed). Compared in constant
     * time.
     */
    public static boolean opens(Bytes secret, Id key, Bytes valueHash, Bytes binding) {
        if (secret.isEmpty() || binding.length() != BYTES) {
            return false;
        }
        return MessageDigest.isEqual(of(secret, key, valueHash).toByteArray(), binding.toByteArray());
    }
}
