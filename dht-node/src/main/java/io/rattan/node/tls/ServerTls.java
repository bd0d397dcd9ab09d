package io.rattan.node.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS on the client ports (the binary gateway and HTTP): a certificate chain and its key, any CA's (a public one, the cluster's
 * with {@code rattan certs node --san}), re-read when they change ({@link #reloadIfChanged}), so that a renewed
 * certificate is served without a restart. Clients are not asked for certificates; HTTP clients authenticate by token
 * ({@link BearerTokens}). TLS 1.2 and 1.3, the JDK's provider. Thread-safe.
 */
public final class ServerTls {

    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final Path cert;
    private final Path key;
    private final String localName;
    private volatile SslContext context;
    private volatile List<String> stamps;

    private ServerTls(Path cert, Path key, String localName) {
        this.cert = cert;
        this.key = key;
        this.localName = localName;
    }

    /**
     * Loads the certificate chain in {@code cert} (PEM, the server's first) and its key in {@code key} (PKCS#8 PEM,
     * owner-only).
     *
     * @throws IOException when a file cannot be read or used, or the key is not the certificate's
     */
    public static ServerTls open(Path cert, Path key, String localName) throws IOException {
        ServerTls tls = new ServerTls(cert, key, localName);
        tls.stamps = FileStamps.of(cert, key);
        tls.context = tls.load();
        return tls;
    }

    /** A handler that runs the server's end of TLS on the accepted connection {@code channel}. */
    public ChannelHandler handler(Channel channel) {
        return context.newHandler(channel.alloc());
    }

    /** Re-reads the files if either changed; keeps the ones loaded when the new ones cannot be used. */
    public void reloadIfChanged() {
        List<String> now = FileStamps.of(cert, key);
        if (now.equals(stamps)) {
            return;
        }
        stamps = now;
        try {
            context = load();
            log.info("{}: reloaded the TLS certificate {}", localName, cert);
        } catch (IOException | RuntimeException e) {
            log.warn("{}: the TLS certificate {} or its key changed but cannot be used, so the one loaded before "
                    + "stays: {}", localName, cert, e.getMessage());
        }
    }

    private SslContext load() throws IOException {
        List<X509Certificate> chain = CertificatePem.read(cert);
        PrivateKey privateKey = PemKeys.read(key);
        // A certificate and a key renewed one after the other may not match for a moment: keep the pair before.
        if (!PemKeys.matches(privateKey, chain.get(0).getPublicKey())) {
            throw new IOException(key + " is not the key of the certificate in " + cert);
        }
        try {
            return SslContextBuilder.forServer(privateKey, chain.toArray(X509Certificate[]::new))
                    .sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot serve TLS with " + cert + " and " + key + ": " + e.getMessage(), e);
        }
    }
}
