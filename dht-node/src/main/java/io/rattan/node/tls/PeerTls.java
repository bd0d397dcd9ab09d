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
import io.netty.util.concurrent.EventExecutor;
import io.rattan.core.id.Id;
import io.rattan.core.id.NodeKey;
import io.rattan.core.util.Bytes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS on a node's peer connections, both the ones it accepts and the ones it dials: each end presents a
 * certificate of the cluster CA that carries its node key, so only the cluster's nodes connect at all, and the id a
 * peer's hello claims must be its certificate's ({@link #certifies}; it replaces the check of the connection's
 * source address, so that nodes behind NAT can join). The files are re-read when they change
 * ({@link #reloadIfChanged}, every {@link #RELOAD_SECONDS} s on the node's loop): new connections use the new
 * certificates, and the connections of a newly revoked node are closed at once; its new ones fail their handshake.
 *
 * <p>Thread-safe: handlers are made on I/O threads while the reload swaps an immutable state.
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
    private volatile State state;

    private record State(SslContext server, SslContext client, Set<Id> revoked, List<String> stamps) {
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
        tls.state = tls.load();
        return tls;
    }

    /** A handler that runs the listener's end of TLS on an accepted peer connection {@code channel}. */
    public ChannelHandler serverHandler(Channel channel) {
        return handler(channel, state.server());
    }

    /** A handler that runs the dialer's end of TLS on an outbound peer connection {@code channel}. */
    public ChannelHandler clientHandler(Channel channel) {
        return handler(channel, state.client());
    }

    /** Whether {@code channel}'s peer proved {@code id} by its certificate. */
    public boolean certifies(Channel channel, Id id) {
        return PeerCertificates.peerId(channel).map(id::equals).orElse(false);
    }

    /** Re-reads the files if any changed, and closes the connections of nodes revoked since. */
    public void reloadIfChanged() {
        State old = state;
        List<String> stamps = stamps();
        if (stamps.equals(old.stamps())) {
            return;
        }
        try {
            State loaded = load();
            state = loaded;
            log.info("{}: TLS files reloaded ({} node(s) revoked)", localName, loaded.revoked().size());
            cutOff(loaded.revoked());
        } catch (IOException | RuntimeException e) {
            // Keep serving with what was loaded; warn once per change, not at every check.
            state = new State(old.server(), old.client(), old.revoked(), stamps);
            log.warn("{}: the TLS files changed but cannot be used, so the ones loaded before stay: {}", localName,
                    e.getMessage());
        }
    }

    /** TLS handshakes that failed, either end: a peer without the cluster's certificate, a revoked one, a timeout. */
    public long handshakesFailed() {
        return handshakesFailed.sum();
    }

    /** Connections closed because their peer was revoked while they were open. */
    public long connectionsCutOff() {
        return cutOff.sum();
    }

    /** Node ids in the revocation list now. */
    public int revokedCount() {
        return state.revoked().size();
    }

    private ChannelHandler handler(Channel channel, SslContext context) {
        SslHandler ssl = context.newHandler(channel.alloc());
        ssl.handshakeFuture().addListener(f -> {
            if (!f.isSuccess()) {
                handshakesFailed.increment();
                log.debug("{}: TLS handshake with {} failed: {}", localName, channel.remoteAddress(),
                        f.cause().toString());
                return;
            }
            channels.add(channel);
            // A handshake that began before a reload ran with the old list.
            PeerCertificates.peerId(channel).filter(state.revoked()::contains).ifPresent(id -> cut(channel, id));
        });
        return ssl;
    }

    private void cutOff(Set<Id> revoked) {
        for (Channel channel : channels) {
            PeerCertificates.peerId(channel).filter(revoked::contains).ifPresent(id -> cut(channel, id));
        }
    }

    private void cut(Channel channel, Id id) {
        cutOff.increment();
        log.info("{}: closing the connection of revoked node {} ({})", localName, id.shortHex(),
                channel.remoteAddress());
        channel.close();
    }

    private State load() throws IOException {
        // Stamps first: a change made while reading is seen at the next check.
        List<String> stamps = stamps();
        List<X509Certificate> cas = CertificatePem.read(files.ca());
        List<X509Certificate> chain = CertificatePem.read(files.cert());
        Set<Id> revoked = RevokedIds.read(files.revoked());
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
        RevokingTrustManager trust = RevokingTrustManager.of(cas, revoked);
        X509Certificate[] certs = chain.toArray(X509Certificate[]::new);
        try {
            trust.checkOwn(certs);
        } catch (CertificateException e) {
            throw new IOException(files.cert() + " is not a valid certificate of the CA " + files.ca()
                    + " for a node that is not revoked: " + e.getMessage(), e);
        }
        PrivateKey privateKey = ClusterCa.privateKey(key);
        SslContext server = SslContextBuilder.forServer(privateKey, certs).sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS).clientAuth(ClientAuth.REQUIRE).trustManager(trust).build();
        SslContext client = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                .keyManager(privateKey, certs).trustManager(trust).build();
        return new State(server, client, revoked, stamps);
    }

    /** Each file's modification time and size, or that it is missing: what says a file changed. */
    private List<String> stamps() {
        List<String> out = new ArrayList<>();
        for (Path file : new Path[] {files.ca(), files.cert(), files.revoked()}) {
            if (file == null) {
                continue;
            }
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                out.add(a.lastModifiedTime() + "/" + a.size() + "/" + a.fileKey());
            } catch (NoSuchFileException e) {
                out.add("missing");
            } catch (IOException e) {
                out.add("unreadable: " + e.getMessage());
            }
        }
        return out;
    }
}
