package io.rattan.core.util;

import io.rattan.api.Bytes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * An Ed25519 private key (its 32-byte RFC 8032 seed) as key files hold it: PKCS#8 PEM ({@code -----BEGIN PRIVATE
 * KEY-----}), the format {@code openssl genpkey -algorithm ed25519} writes; read also from DER and from 32 raw
 * bytes. Owners' keys and nodes' keys are both kept this way. Stateless.
 */
public final class Ed25519Pem {

    /** The length of a seed. */
    public static final int SEED_BYTES = 32;
    private static final String PEM_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PEM_END = "-----END PRIVATE KEY-----";
    // The DER of an Ed25519 PKCS#8 v1 private key is this prefix and the 32-byte seed (RFC 8410).
    private static final byte[] PKCS8_PREFIX = HexFormat.of().parseHex("302e020100300506032b657004220420");

    private Ed25519Pem() {
    }

    /** The PEM text of {@code seed}. */
    public static String encode(Bytes seed) {
        byte[] der = pkcs8(seed);
        return PEM_BEGIN + "\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n"
                + PEM_END + "\n";
    }

    /** The PKCS#8 DER of {@code seed}, as {@link java.security.spec.PKCS8EncodedKeySpec} takes it. */
    public static byte[] pkcs8(Bytes seed) {
        byte[] der = Arrays.copyOf(PKCS8_PREFIX, PKCS8_PREFIX.length + seed.length());
        seed.copyTo(der, PKCS8_PREFIX.length);
        return der;
    }

    /**
     * The seed in a key file's {@code content}: PKCS#8 PEM or DER, or 32 raw bytes.
     *
     * @param source names the file in the error
     * @throws IOException when {@code content} holds no Ed25519 private key; the message says why
     */
    public static Bytes decode(byte[] content, String source) throws IOException {
        if (content.length == SEED_BYTES) {
            return Bytes.of(content);
        }
        String text = new String(content, StandardCharsets.US_ASCII).strip();
        byte[] der = content;
        if (text.startsWith(PEM_BEGIN)) {
            int end = text.indexOf(PEM_END);
            if (end < 0) {
                throw new IOException(source + ": no '" + PEM_END + "' line");
            }
            try {
                der = Base64.getMimeDecoder().decode(text.substring(PEM_BEGIN.length(), end));
            } catch (IllegalArgumentException e) {
                throw new IOException(source + ": the PEM body is not base64", e);
            }
        }
        try {
            EdECPrivateKey key = (EdECPrivateKey) KeyFactory.getInstance("Ed25519")
                    .generatePrivate(new PKCS8EncodedKeySpec(der));
            byte[] seed = key.getBytes().orElseThrow(() -> new IOException(source + ": the key has no private bytes"));
            return Bytes.wrap(seed);
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IOException(source + " holds no Ed25519 private key (PKCS#8 PEM or DER, or 32 raw bytes): "
                    + e.getMessage(), e);
        }
    }
}
