package io.rattan.node.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files {@code --tls-dir DIR} reads: the cluster CA's certificate, which must be there, and the optional revocation
 * list, client CA and bearer tokens, each taken only when DIR holds it (null otherwise).
 */
record TlsDirFiles(Path ca, Path revoked, Path clientCa, Path tokens) {

    static final String CA = "ca.crt";
    static final String REVOKED = "revoked.txt";
    static final String CLIENT_CA = "client-ca.crt";
    static final String TOKENS = "tokens.txt";

    /**
     * The files of {@code dir}.
     *
     * @throws IllegalArgumentException when {@code dir} holds no {@value #CA}
     */
    static TlsDirFiles in(Path dir) {
        Path ca = dir.resolve(CA);
        if (!Files.isRegularFile(ca)) {
            throw new IllegalArgumentException("--tls-dir " + dir + " holds no " + CA + " (the cluster CA's "
                    + "certificate: `rattan certs ca --dir DIR` writes one)");
        }
        return new TlsDirFiles(ca, optional(dir, REVOKED), optional(dir, CLIENT_CA), optional(dir, TOKENS));
    }

    private static Path optional(Path dir, String name) {
        Path file = dir.resolve(name);
        return Files.exists(file) ? file : null;
    }
}
