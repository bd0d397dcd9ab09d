package io.rattan.node.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.EventExecutor;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.id.NodeKey;
import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS on a node's peer connections, both the ones it accepts and the ones it dials: each end presents a
 * certificate of the cluster CA that carries its node key, so only the cluster's nodes connect at all, and the id a
 * peer's hello claims must be its certificate's ({@link #certifies}; it replaces the check of the connection's
 * source address, so that nodes behind NAT can join). The files are re-read when they change
 * ({@link #reloadIfChanged}, every {@link #RELOAD_SECONDS} s, off the node's loop). The revocation list applies on
 * its own, whatever the other files hold: a revoked node's open connections are closed at once and its new ones fail
 * their handshake. A new CA file or certificate applies to new connections, and open ones whose peer it no longer
 * trusts are closed.
 *
 * <p>Thread-safe: handlers are made on I/O threads while the reload swaps immutable parts.
 */
public final class PeerTls {

    /** How often the files are checked for changes. */
    public static final int RELOAD_SECONDS = 2;
    private static final Logger log = LoggerFactory.getLogger(PeerTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3"};

    private final TlsFiles files;
    private final NodeKey key;
    private final String localName;
    // Every peer connection whose handshake succeeded; closed ones leave by themselves.
    private final ChannelGroup channels;
    private final LongAdder handshakesFailed = new LongAdder();
    private final LongAdder cutOff = new LongAdder();
    private volatile Set<Id> revoked;
    private volatile List<String> revokedStamps;
    private volatile Contexts contexts;

    private record Contexts(SslContext server, SslContext client, RevokingTrustManager trust, List<String> stamps) {
    }

    private PeerTls(TlsFiles files, NodeKey key, EventExecutor executor, String localName) {
        this.files = files;
        this.key = key;
        this.localName = localName;
        this.channels = new DefaultChannelGroup("rattan-peer-tls", executor);
    }

    /**
     * Loads {@code files} for the node whose key is {@code key}.
     *
     * @param executor runs the channel group's bookkeeping: the node's loop
     * @throws IOException when a file cannot be read, the certificate is not {@code key}'s or not the CA's, or
     *                     this node is revoked; the message says which and what to do
     */
    public static PeerTls open(TlsFiles files, NodeKey key, EventExecutor executor, String localName)
            throws IOException {
        PeerTls tls = new PeerTls(files, key, executor, localName);
        tls.revokedStamps = FileStamps.of(files.revoked());
        tls.revoked = RevokedIds.read(files.revoked());
        tls.contexts = tls.load();
        return tls;
    }

    /** A handler that runs the listener's end of TLS on an accepted peer connection {@code channel}. */
    public ChannelHandler serverHandler(Channel channel) {
        return handler(channel, contexts.server());
    }

    /** A handler that runs the dialer's end of TLS on an outbound peer connection {@code channel}. */
    public ChannelHandler clientHandler(Channel channel) {
        return handler(channel, contexts.client());
    }

    /** Whether {@code channel}'s peer proved {@code id} by its certificate. */
    public boolean certifies(Channel channel, Id id) {
        return PeerCertificates.peerId(channel).map(id::equals).orElse(false);
    }

    /** Re-reads the files that changed, then closes the connections of peers no longer trusted. Any thread. */
    public void reloadIfChanged() {
        boolean changed = reloadRevoked();
        Contexts old = contexts;
        List<String> stamps = FileStamps.of(files.ca(), files.cert());
        if (!stamps.equals(old.stamps())) {
            changed = true;
            try {
                contexts = load();
                log.info("{}: reloaded the TLS files {} and {}", localName, files.ca(), files.cert());
            } catch (IOException | RuntimeException e) {
                // Keep serving with what was loaded; warn once per change, not at every check.
                contexts = new Contexts(old.server(), old.client(), old.trust(), stamps);
                log.warn("{}: the TLS files changed but cannot be used, so the ones loaded before stay: {}",
                        localName, e.getMessage());
            }
        }
        if (changed) {
            cutOffUntrusted();
        }
    }

    /** TLS handshakes on peer connections that this node failed or refused, in either role. */
    public long handshakesFailed() {
        return handshakesFailed.sum();
    }

    /** Connections closed because their peer was no longer trusted (revoked, or its CA dropped) while open. */
    public long connectionsCutOff() {
        return cutOff.sum();
    }

    /** Node ids in the revocation list now. */
    public int revokedCount() {
        return revoked.size();
    }

    private Set<Id> revoked() {
        return revoked;
    }

    /** Applies a changed revocation list, skipping (and logging) lines that are not ids; true if it changed. */
    private boolean reloadRevoked() {
        List<String> stamps = FileStamps.of(files.revoked());
        if (stamps.equals(revokedStamps)) {
            return false;
        }
        revokedStamps = stamps;
        try {
            revoked = RevokedIds.read(files.revoked(), why -> log.warn("{}: skipping {}", localName, why));
            log.info("{}: {} node(s) revoked ({})", localName, revoked.size(), files.revoked());
            if (revoked.contains(key.id())) {
                log.error("{}: this node's own id is in the revocation list {}: its peers refuse it", localName,
                        files.revoked());
            }
        } catch (IOException e) {
            log.warn("{}: cannot read the revocation list, so the one loaded before stays: {}", localName,
                    e.getMessage());
        }
        return true;
    }

    private ChannelHandler handler(Channel channel, SslContext context) {
        SslHandler ssl = context.newHandler(channel.alloc());
        ssl.handshakeFuture().addListener(f -> {
            if (!f.isSuccess()) {
                // A refused certificate, or no TLS at all; not a connection that closed or failed to connect.
                if (f.cause() instanceof SSLException || f.cause() instanceof DecoderException) {
                    handshakesFailed.increment();
                    log.debug("{}: TLS handshake with {} failed: {}", localName, channel.remoteAddress(),
                            f.cause().toString());
                }
                return;
            }
            channels.add(channel);
            // A handshake that began before a reload ran with what was trusted then.
            checkOrCut(channel, contexts.trust());
        });
        return ssl;
    }

    private void cutOffUntrusted() {
        RevokingTrustManager trust = contexts.trust();
        for (Channel channel : channels) {
            checkOrCut(channel, trust);
        }
    }

    private void checkOrCut(Channel channel, RevokingTrustManager trust) {
        X509Certificate[] chain = PeerCertificates.peerChain(channel);
        if (chain.length == 0) {
            return;
        }
        try {
            trust.check(chain);
        } catch (CertificateException e) {
            cutOff.increment();
            log.info("{}: closing the peer connection of {} ({}): {}", localName,
                    PeerCertificates.idOf(chain[0]).shortHex(), channel.remoteAddress(), e.getMessage());
            channel.close();
        }
    }

    private Contexts load() throws IOException {
        // Stamps first: a change made while reading is seen at the next check.
        List<String> stamps = FileStamps.of(files.ca(), files.cert());
        List<X509Certificate> cas = CertificatePem.read(files.ca());
        List<X509Certificate> chain = CertificatePem.read(files.cert());
        Bytes certified;
        try {
            certified = PeerCertificates.publicKey(chain.get(0));
        } catch (IllegalArgumentException e) {
            throw new IOException(files.cert() + ": " + e.getMessage(), e);
        }
        if (!certified.equals(key.publicKey())) {
            throw new IOException(files.cert() + " certifies the node " + NodeKey.idOf(certified) + ", not this node "
                    + key.id() + ": issue this node's with `rattan certs node --data-dir DIR`");
        }
        RevokingTrustManager trust = RevokingTrustManager.of(cas, this::revoked);
        X509Certificate[] certs = chain.toArray(X509Certificate[]::new);
        try {
            trust.check(certs);
        } catch (CertificateException e) {
            throw new IOException(files.cert() + " is not a valid certificate of the CA " + files.ca()
                    + " for a node that is not revoked: " + e.getMessage(), e);
        }
        PrivateKey privateKey = ClusterCa.privateKey(key);
        SslContext server = SslContextBuilder.forServer(privateKey, certs).sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS).clientAuth(ClientAuth.REQUIRE).trustManager(trust).build();
        // No host-name check: a peer is known by the key its certificate carries, not by a name.
        SslContext client = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                .endpointIdentificationAlgorithm(null).keyManager(privateKey, certs).trustManager(trust).build();
        return new Contexts(server, client, trust, stamps);
    }
}
