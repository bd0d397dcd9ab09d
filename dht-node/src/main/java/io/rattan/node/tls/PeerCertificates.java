package io.rattan.node.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.id.NodeKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;

/** What a node certificate names: its Ed25519 public key, and so a node id. Stateless. */
public final class PeerCertificates {

    // An Ed25519 SubjectPublicKeyInfo is this prefix and the 32-byte key (RFC 8410).
    private static final byte[] ED25519_SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

    private PeerCertificates() {
    }

    /**
     * The 32-byte Ed25519 key {@code certificate} carries.
     *
     * @throws IllegalArgumentException when it carries another kind of key: no node's
     */
    public static Bytes publicKey(X509Certificate certificate) {
        byte[] spki = certificate.getPublicKey().getEncoded();
        if (spki.length != ED25519_SPKI_PREFIX.length + NodeKey.PUBLIC_KEY_BYTES
                || !Arrays.equals(spki, 0, ED25519_SPKI_PREFIX.length, ED25519_SPKI_PREFIX, 0,
                ED25519_SPKI_PREFIX.length)) {
            throw new IllegalArgumentException("the certificate '" + certificate.getSubjectX500Principal()
                    + "' carries a " + certificate.getPublicKey().getAlgorithm() + " key, not a node's Ed25519 key");
        }
        return Bytes.wrap(Arrays.copyOfRange(spki, ED25519_SPKI_PREFIX.length, spki.length));
    }

    /** The node id {@code certificate} names: SHA-1 of its key. */
    public static Id idOf(X509Certificate certificate) {
        return NodeKey.idOf(publicKey(certificate));
    }

    /** As {@link #idOf}, failing the way a trust manager must. */
    static Id idOrRefuse(X509Certificate certificate) throws CertificateException {
        try {
            return idOf(certificate);
        } catch (IllegalArgumentException e) {
            throw new CertificateException(e.getMessage(), e);
        }
    }

    /**
     * The node id that {@code channel}'s peer proved by its certificate in the TLS handshake, or empty when the
     * channel has no TLS, or its handshake has not completed.
     */
    public static Optional<Id> peerId(Channel channel) {
        X509Certificate[] chain = peerChain(channel);
        try {
            return chain.length > 0 ? Optional.of(idOf(chain[0])) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The certificate chain {@code channel}'s peer presented in its TLS handshake, its own first; empty when the
     * channel has no TLS, its handshake has not completed, or the peer presented none.
     */
    static X509Certificate[] peerChain(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return new X509Certificate[0];
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            return Arrays.copyOf(chain, chain.length, X509Certificate[].class);
        } catch (SSLPeerUnverifiedException | ArrayStoreException e) {
            return new X509Certificate[0];
        }
    }
}
