package io.rattan.client;

import io.rattan.core.id.Id;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.OwnerStamp;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.owned.SignedOp;
import io.rattan.core.util.Bytes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.SecureRandom;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * An owner's Ed25519 key pair: what signs owned values. Its public key is the owner every replica checks a value's
 * signature against; the private key never leaves the owner (no gateway ever holds it).
 *
 * <p>Kept on disk as a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}), the format {@code openssl genpkey
 * -algorithm ed25519} writes; {@link #load} also reads the DER form and a raw 32-byte seed. Thread-safe and
 * immutable.
 */
public final class OwnerKey {

    private static final String PEM_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PEM_END = "-----END PRIVATE KEY-----";
    // The DER of an Ed25519 PKCS#8 v1 private key is this prefix and the 32-byte seed (RFC 8410).
    private static final byte[] PKCS8_PREFIX = HexFormat.of().parseHex("302e020100300506032b657004220420");

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
        byte[] content = Files.readAllBytes(file);
        if (content.length == OwnerSignatures.PRIVATE_KEY_BYTES) {
            return new OwnerKey(Bytes.wrap(content));
        }
        String text = new String(content, StandardCharsets.US_ASCII).strip();
        byte[] der = content;
        if (text.startsWith(PEM_BEGIN)) {
            int end = text.indexOf(PEM_END);
            if (end < 0) {
                throw new IOException(file + ": no '" + PEM_END + "' line");
            }
            try {
                der = Base64.getMimeDecoder().decode(text.substring(PEM_BEGIN.length(), end));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": the PEM body is not base64", e);
            }
        }
        try {
            EdECPrivateKey key = (EdECPrivateKey) KeyFactory.getInstance("Ed25519")
                    .generatePrivate(new PKCS8EncodedKeySpec(der));
            byte[] seed = key.getBytes().orElseThrow(() -> new IOException(file + ": the key has no private bytes"));
            return new OwnerKey(Bytes.wrap(seed));
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IOException(file + " holds no Ed25519 private key (PKCS#8 PEM or DER, or 32 raw bytes): "
                    + e.getMessage(), e);
        }
    }

    /**
     * Writes the private key as PKCS#8 PEM to a new file, readable by its owner only where the file system has
     * POSIX permissions.
     *
     * @throws FileAlreadyExistsException when {@code file} exists: a key is never overwritten
     */
    public void write(Path file) throws IOException {
        byte[] der = Arrays.copyOf(PKCS8_PREFIX, PKCS8_PREFIX.length + privateKey.length());
        privateKey.copyTo(der, PKCS8_PREFIX.length);
        String pem = PEM_BEGIN + "\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n"
                + PEM_END + "\n";
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
