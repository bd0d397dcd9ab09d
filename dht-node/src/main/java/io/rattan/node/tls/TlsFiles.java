package io.rattan.node.tls;

import java.nio.file.Path;

/**
 * Where a node finds what mutual TLS between nodes needs; giving them turns it on.
 *
 * @param ca      the cluster CA's certificate(s), PEM: peers must present a certificate it issued
 * @param cert    this node's certificate, PEM, issued by the CA for this node's own key ({@code rattan certs node})
 * @param revoked node ids that are cut off and refused, one (hex) per line, {@code #} comments; null for none.
 *                Re-read, as the other two are, when it changes
 */
public record TlsFiles(Path ca, Path cert, Path revoked) {

    /** The certificate's name in a node's data directory, where {@code rattan certs node} writes it. */
    public static final String NODE_CERT = "node.crt";

    public TlsFiles {
        if (ca == null || cert == null) {
            throw new IllegalArgumentException("TLS needs the CA certificate and the node's certificate");
        }
    }

    /** The CA at {@code ca}, this node's certificate in its data directory, no revocation list. */
    public static TlsFiles inDataDir(Path ca, Path dataDir) {
        return new TlsFiles(ca, dataDir.resolve(NODE_CERT), null);
    }

    /** These files with the revocation list {@code file}. */
    public TlsFiles withRevoked(Path file) {
        return new TlsFiles(ca, cert, file);
    }
}
