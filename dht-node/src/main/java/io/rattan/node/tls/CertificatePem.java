package io.rattan.node.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** X.509 certificates as PEM files hold them ({@code -----BEGIN CERTIFICATE-----}), one or several. Stateless. */
public final class CertificatePem {

    private CertificatePem() {
    }

    /** The PEM text of {@code certificate}. */
    public static String encode(X509Certificate certificate) {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a certificate that cannot be encoded: " + e.getMessage(), e);
        }
    }

    /**
     * Every certificate in {@code file}, in order.
     *
     * @throws IOException when the file cannot be read or holds no certificate; the message names the file
     */
    public static List<X509Certificate> read(Path file) throws IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("cannot read the certificate file " + file + ": " + e.getMessage(), e);
        }
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            factory.generateCertificates(new ByteArrayInputStream(content))
                    .forEach(c -> out.add((X509Certificate) c));
        } catch (GeneralSecurityException e) {
            throw new IOException(file + " holds no PEM certificate: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new IOException(file + " holds no PEM certificate");
        }
        return out;
    }

    /** Writes {@code certificate} to {@code file} as PEM (replacing it), readable by all: a certificate is public. */
    static void write(Path file, X509Certificate certificate) throws IOException {
        Files.writeString(file, encode(certificate), StandardCharsets.US_ASCII);
    }
}
