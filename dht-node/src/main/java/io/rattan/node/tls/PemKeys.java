package io.rattan.node.tls;

import io.rattan.node.identity.NodeKeyFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * A TLS server's private key as a PEM file holds it: PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}), of an Ed25519,
 * EC or RSA key, in a file only its owner may read. Stateless.
 */
final class PemKeys {

    private static final String BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String END = "-----END PRIVATE KEY-----";
    private static final String[] ALGORITHMS = {"Ed25519", "EC", "RSA"};

    private PemKeys() {
    }

    /** Whether {@code privateKey} is {@code publicKey}'s other half: a signature of one verifies with the other. */
    static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
        String algorithm = switch (privateKey.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> "Ed25519";
        };
        byte[] probe = "rattan/key-matches-certificate".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * The key in {@code file}.
     *
     * @throws IOException when it cannot be read, others may read or write it, or it holds no PKCS#8 key of a kind
     *                     above; the message says which
     */
    static PrivateKey read(Path file) throws IOException {
        NodeKeyFile.requireOwnerOnly(file, "the key file");
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IOException(file + " holds no PKCS#8 PEM private key ('" + BEGIN + "'); convert one with "
                    + "`openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8`");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(begin + BEGIN.length(), end));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": the PEM body is not base64", e);
        }
        for (String algorithm : ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // Not this kind: try the next.
            }
        }
        throw new IOException(file + " holds a private key that is not Ed25519, EC or RSA");
    }
}
