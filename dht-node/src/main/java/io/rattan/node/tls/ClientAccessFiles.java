package io.rattan.node.tls;

import java.nio.file.Path;

/**
 * How clients reach a node: TLS on both client ports (the binary gateway and HTTP) with a certificate and its key,
 * and bearer tokens on HTTP; each optional.
 *
 * @param cert   the certificate chain, PEM (with {@code key}), or null for plaintext
 * @param key    the certificate's private key, PKCS#8 PEM, owner-only; null exactly when {@code cert} is
 * @param tokens the token file ({@link BearerTokens}), or null to take requests without a token
 * @param clientCa the CA certificate(s), PEM, whose client certificates the client ports require (with {@code cert}),
 *               or null to ask for none
 */
public record ClientAccessFiles(Path cert, Path key, Path tokens, Path clientCa) {

    /** Plaintext, no tokens. */
    public static final ClientAccessFiles OPEN = new ClientAccessFiles(null, null, null, null);

    public ClientAccessFiles {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("TLS on the client ports needs both the certificate and its key");
        }
        if (clientCa != null && cert == null) {
            throw new IllegalArgumentException("client certificates need TLS on the client ports: the certificate "
                    + "and its key");
        }
    }

    /** TLS with {@code cert} and {@code key}, bearer tokens from {@code tokens}, no client certificates. */
    public ClientAccessFiles(Path cert, Path key, Path tokens) {
        this(cert, key, tokens, null);
    }
}
