package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.util.Ed25519Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * An owner's Ed25519 key pair: what signs owned values. Its public key is the owner every replica checks a value's
 * signature against; the private key never leaves the owner (no gateway ever holds it).
 *
 * <p>Kept on disk as a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}), the format {@code openssl genpkey
 * -algorithm ed25519} writes; {@link #load} also reads the DER form and a raw 32-byte seed. Thread-safe and
 * immutable.
 */
public final class OwnerKey {

    private final Bytes privateKey;
    private final Bytes publicKey;

    private OwnerKey(Bytes privateKey) {
        this.privateKey = privateKey;
        this.publicKey = OwnerSignatures.publicKey(privateKey);
    }

    /** A new key pair from the platform's secure random source. */
    public static OwnerKey generate() {
        byte[] seed = new byte[OwnerSignatures.PRIVATE_KEY_BYTES];
        new SecureRandom().nextBytes(seed);
        return new OwnerKey(Bytes.wrap(seed));
    }

    /** The key pair of a 32-byte private key (an RFC 8032 seed). */
    public static OwnerKey ofPrivateKey(Bytes seed) {
        if (seed.length() != OwnerSignatures.PRIVATE_KEY_BYTES) {
            throw new IllegalArgumentException("an Ed25519 private key is 32 bytes, got " + seed.length());
        }
        return new OwnerKey(seed);
    }

    /**
     * Reads a key file: PKCS#8 PEM or DER, or a raw 32-byte seed.
     *
     * @throws IOException when the file cannot be read or holds no Ed25519 private key; the message says which
     */
    public static OwnerKey load(Path file) throws IOException {
        return new OwnerKey(Ed25519Pem.decode(Files.readAllBytes(file), file.toString()));
    }

    /**
     * Writes the private key as PKCS#8 PEM to a new file, readable by its owner only where the file system has
     * POSIX permissions.
     *
     * @throws FileAlreadyExistsException when {@code file} exists: a key is never overwritten
     */
    public void write(Path file) throws IOException {
        String pem = Ed25519Pem.encode(privateKey);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory's own access rules apply.
            Files.createFile(file);
        }
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }

    /** The public key, 32 bytes: the owner of every value this key signs. */
    public Bytes publicKey() {
        return publicKey;
    }

    /** The public key as HTTP carries it ({@code Rattan-Owner}): base64url without padding. */
    public String publicKeyBase64Url() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(publicKey.toByteArray());
    }

    /**
     * Signs one op on a value of the default namespace: the stamp a put or remove of an owned value carries.
     *
     * @param dataHash SHA-256 of the data; {@link SignedBytes#EMPTY_DATA_HASH} for a remove
     */
    public OwnerStamp sign(SignedOp op, Id key, long valueId, long seq, long expiresAtSeconds, Bytes dataHash) {
        return sign(SignedBytes.DEFAULT_NAMESPACE, op, key, valueId, seq, expiresAtSeconds, dataHash);
    }

    /**
     * Signs one op on a value of {@code namespace}: the signature verifies in that namespace only.
     *
     * @param dataHash SHA-256 of the data; {@link SignedBytes#EMPTY_DATA_HASH} for a remove
     */
    public OwnerStamp sign(String namespace, SignedOp op, Id key, long valueId, long seq, long expiresAtSeconds,
                           Bytes dataHash) {
        return OwnerSignatures.sign(privateKey, op, namespace, key, valueId, seq, expiresAtSeconds, dataHash);
    }

    /** Names the public key only. */
    @Override
    public String toString() {
        return "OwnerKey[" + publicKeyBase64Url() + "]";
    }
}
