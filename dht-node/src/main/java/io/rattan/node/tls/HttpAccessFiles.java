package io.rattan.node.tls;

import java.nio.file.Path;

/**
 * How the HTTP gateway is reached: TLS with a certificate and its key, and bearer tokens; each optional.
 *
 * @param cert   the certificate chain, PEM (with {@code key}), or null for plaintext HTTP
 * @param key    the certificate's private key, PKCS#8 PEM, owner-only; null exactly when {@code cert} is
 * @param tokens the token file ({@link BearerTokens}), or null to take requests without a token
 */
public record HttpAccessFiles(Path cert, Path key, Path tokens) {

    /** Plaintext, no tokens. */
    public static final HttpAccessFiles OPEN = new HttpAccessFiles(null, null, null);

    public HttpAccessFiles {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("TLS on the HTTP gateway needs both the certificate and its key");
        }
    }
}
