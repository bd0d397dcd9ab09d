package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.nio.charset.StandardCharsets;
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
 * <p>What the nodes call the secret is, since 7 December 2026, a client's <em>remove proof</em> for one value
 * ({@link #proof}): the Java client and the HTTP gateway bind a value to the proof ({@link #bindingFor}) and remove
 * it with the proof, so the secret a user holds never leaves them, and what a remove and its tombstone carry through
 * the overlay opens that one value only: a node that learns it (a tombstone reaches more nodes under faults) learns
 * nothing about the user's other values.
 *
 * <p>Stateless and thread-safe.
 */
public final class SecretBinding {

    /** The length of a binding: one SHA-256. */
    public static final int BYTES = 32;

    /** Sets proofs apart from every other SHA-256 of the same bytes, a binding made with the secret itself included. */
    private static final byte[] PROOF_TAG = "rattan remove proof 1\n".getBytes(StandardCharsets.US_ASCII);

    private SecretBinding() {
    }

    /** {@code SHA-256(secret ‖ key ‖ valueHash)}. */
    public static Bytes of(Bytes secret, Id key, Bytes valueHash) {
        return sha256(secret.toByteArray(), key.toBytes(), valueHash.toByteArray());
    }

    /**
     * A client's remove proof for the value {@code (key, valueHash)} put with {@code secret}:
     * {@code SHA-256("rattan remove proof 1\n" ‖ secret ‖ key ‖ valueHash)}. What a remove sends in place of the
     * secret; it opens only the binding {@link #bindingFor} gives the same value.
     */
    public static Bytes proof(Bytes secret, Id key, Bytes valueHash) {
        return sha256(PROOF_TAG, secret.toByteArray(), key.toBytes(), valueHash.toByteArray());
    }

    /** The binding a client puts the value {@code (key, valueHash)} with for {@code secret}: that of its proof. */
    public static Bytes bindingFor(Bytes secret, Id key, Bytes valueHash) {
        return of(proof(secret, key, valueHash), key, valueHash);
    }

    /**
     * The name a bound value, and the tombstone of its remove, are stored under: {@code SHA-256(valueHash ‖ binding)}
     * (protocol version 16). Each put of the same bytes with its own secret is its own record, removable only by its
     * own secret, so nobody can take over another's remove by storing the bytes first; a tombstone lives under the
     * name of the one value it opens, so no copy under another binding ever meets it. A value without a binding is
     * named by its hash alone.
     */
    public static Bytes slot(Bytes valueHash, Bytes binding) {
        return binding.isEmpty() ? valueHash : sha256(valueHash.toByteArray(), binding.toByteArray());
    }

    /** The slot a value a client put under {@code key} with {@code secret} is stored in, and its tombstone. */
    public static Bytes slotFor(Bytes secret, Id key, Bytes valueHash) {
        return slotOpenedBy(proof(secret, key, valueHash), key, valueHash);
    }

    /** The slot of the value {@code (key, valueHash)} that {@code secret} opens: where a remove with it looks. */
    public static Bytes slotOpenedBy(Bytes secret, Id key, Bytes valueHash) {
        return secret.isEmpty() ? valueHash : slot(valueHash, of(secret, key, valueHash));
    }

    /**
     * The slot of a record (a stored one or one on the wire): an owned record's name is its slot already; a tombstone
     * lives in the slot of the value its secret opens; a value in the slot of its binding. A tombstone told to a
     * watching gateway carries no secret but the binding it opens, which names the same slot.
     */
    public static Bytes slotOf(Id key, Bytes valueHash, Bytes binding, Bytes secret, boolean tombstone, boolean owned) {
        if (owned) {
            return valueHash;
        }
        return tombstone && !secret.isEmpty() ? slotOpenedBy(secret, key, valueHash) : slot(valueHash, binding);
    }

    private static Bytes sha256(byte[]... parts) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        for (byte[] part : parts) {
            sha.update(part);
        }
        return Bytes.wrap(sha.digest());
    }

    /**
     * The binding a client puts {@code value} under {@code key} with for {@code secret} ({@link #bindingFor}); empty
     * (not removable) for null.
     */
    public static Bytes ofValue(byte[] secret, Id key, Bytes value) {
        return secret == null ? Bytes.EMPTY : bindingFor(Bytes.of(secret), key, value.sha256());
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
