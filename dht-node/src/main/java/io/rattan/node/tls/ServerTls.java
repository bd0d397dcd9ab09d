package io.rattan.node.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rattan.node.limits.ClientId;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS on the client ports (the binary gateway and HTTP): a certificate chain and its key, any CA's (a public one,
 * the cluster's with {@code rattan certs node --san}), re-read when they change ({@link #reloadIfChanged}), so that
 * a renewed certificate is served without a restart. Clients may be required to present a certificate of a CA of
 * their own ({@code --client-ca}), checked at their handshake and again, on open connections, whenever the files
 * change; HTTP clients may authenticate by token instead ({@link BearerTokens}). TLS 1.2 and 1.3, the JDK's provider.
 * Thread-safe.
 */
public final class ServerTls {

    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final Path cert;
    private final Path key;
    // The CA whose client certificates are required, or null to ask for none.
    private final Path clientCa;
    private final String localName;
    // Connections whose client presented a certificate: re-checked when the client CA changes.
    private final ChannelGroup clients = new DefaultChannelGroup("rattan-client-tls", GlobalEventExecutor.INSTANCE);
    private volatile SslContext context;
    // Checks client certificates against the client CA; null when none are asked.
    private volatile X509TrustManager clientTrust;
    private volatile List<String> stamps;

    private ServerTls(Path cert, Path key, Path clientCa, String localName) {
        this.cert = cert;
        this.key = key;
        this.clientCa = clientCa;
        this.localName = localName;
    }

    /**
     * Loads the certificate chain in {@code cert} (PEM, the server's first) and its key in {@code key} (PKCS#8 PEM,
     * owner-only).
     *
     * @throws IOException when a file cannot be read or used, or the key is not the certificate's
     */
    public static ServerTls open(Path cert, Path key, String localName) throws IOException {
        return open(cert, key, null, localName);
    }

    /**
     * As {@link #open(Path, Path, String)}, requiring of every client a certificate that a CA in {@code clientCa}
     * (PEM; null: none asked) issued; the client is then known by its certificate's common name
     * ({@link #clientOf}).
     */
    public static ServerTls open(Path cert, Path key, Path clientCa, String localName) throws IOException {
        ServerTls tls = new ServerTls(cert, key, clientCa, localName);
        tls.stamps = FileStamps.of(cert, key, clientCa);
        tls.context = tls.load();
        return tls;
    }

    /** A handler that runs the server's end of TLS on the accepted connection {@code channel}. */
    public ChannelHandler handler(Channel channel) {
        SslHandler ssl = context.newHandler(channel.alloc());
        if (clientCa != null) {
            ssl.handshakeFuture().addListener(f -> {
                if (f.isSuccess()) {
                    clients.add(channel);
                }
            });
        }
        return ssl;
    }

    /**
     * The client {@code channel}'s TLS client certificate names (its subject's common name), or empty when it
     * presented none (or the channel has no TLS).
     */
    public static Optional<ClientId> clientOf(Channel channel) {
        X509Certificate[] chain = PeerCertificates.peerChain(channel);
        if (chain.length == 0) {
            return Optional.empty();
        }
        X500Name subject = X500Name.getInstance(chain[0].getSubjectX500Principal().getEncoded());
        RDN[] names = subject.getRDNs(BCStyle.CN);
        String name = names.length > 0 ? IETFUtils.valueToString(names[0].getFirst().getValue())
                : chain[0].getSubjectX500Principal().getName();
        return Optional.of(ClientId.certificate(name));
    }

    /** Re-reads the files if either changed; keeps the ones loaded when the new ones cannot be used. */
    public void reloadIfChanged() {
        List<String> now = FileStamps.of(cert, key, clientCa);
        if (now.equals(stamps)) {
            return;
        }
        stamps = now;
        try {
            context = load();
            log.info("{}: reloaded the TLS certificate {}", localName, cert);
            closeUntrustedClients();
        } catch (IOException | RuntimeException e) {
            log.warn("{}: the TLS certificate {} or its key changed but cannot be used, so the one loaded before "
                    + "stays: {}", localName, cert, e.getMessage());
        }
    }

    /** Closes the connections whose client certificate the client CA, as now loaded, no longer trusts. */
    private void closeUntrustedClients() {
        X509TrustManager trust = clientTrust;
        if (trust == null) {
            return;
        }
        for (Channel channel : clients) {
            X509Certificate[] chain = PeerCertificates.peerChain(channel);
            try {
                trust.checkClientTrusted(chain, "UNKNOWN");
            } catch (CertificateException | IllegalArgumentException e) {
                log.info("{}: closing the client connection of {} ({}): {}", localName,
                        clientOf(channel).map(ClientId::name).orElse("?"), channel.remoteAddress(), e.getMessage());
                channel.close();
            }
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
            SslContextBuilder builder = SslContextBuilder.forServer(privateKey, chain.toArray(X509Certificate[]::new))
                    .sslProvider(SslProvider.JDK).protocols(PROTOCOLS);
            X509TrustManager trust = clientCa == null ? null : RevokingTrustManager.pkix(CertificatePem.read(clientCa));
            if (trust != null) {
                builder.clientAuth(ClientAuth.REQUIRE).trustManager(trust);
            }
            SslContext built = builder.build();
            clientTrust = trust;
            return built;
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot serve TLS with " + cert + " and " + key + ": " + e.getMessage(), e);
        }
    }
}
