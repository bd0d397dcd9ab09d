package io.rattan.node.tls;

import io.rattan.core.id.Id;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a peer's certificate when the cluster CA issued it (the JDK's PKIX checks: signature, validity, key usage)
 * and it carries a node key whose id is not revoked. Both ends of a peer connection use it, so a revoked node can
 * neither dial nor be dialed. The revoked ids are read at each check, so that a new list applies at once.
 */
final class RevokingTrustManager extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager pkix;
    private final Supplier<Set<Id>> revoked;

    private RevokingTrustManager(X509ExtendedTrustManager pkix, Supplier<Set<Id>> revoked) {
        this.pkix = pkix;
        this.revoked = revoked;
    }

    /** Trusts what the CA certificates {@code cas} issued, but for the ids {@code revoked} gives at each check. */
    static RevokingTrustManager of(List<X509Certificate> cas, Supplier<Set<Id>> revoked) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            for (TrustManager m : factory.getTrustManagers()) {
                if (m instanceof X509ExtendedTrustManager x) {
                    return new RevokingTrustManager(x, revoked);
                }
            }
            throw new IOException("this JDK's PKIX trust manager factory made no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot trust the CA certificates: " + e.getMessage(), e);
        }
    }

    /**
     * Checks a chain as a peer connection's handshake would: a node's own, so that a node with a certificate its
     * peers refuse does not start, and an open connection's after a reload, so that it is closed when the peer is
     * no longer trusted.
     */
    void check(X509Certificate[] chain) throws CertificateException {
        pkix.checkClientTrusted(chain, "UNKNOWN");
        checkNotRevoked(chain);
    }

    private void checkNotRevoked(X509Certificate[] chain) throws CertificateException {
        Id id = PeerCertificates.idOrRefuse(chain[0]);
        if (revoked.get().contains(id)) {
            throw new CertificateException("the node " + id + " is revoked");
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, socket);
        checkNotRevoked(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
        checkNotRevoked(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, engine);
        checkNotRevoked(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        checkNotRevoked(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
        checkNotRevoked(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
        checkNotRevoked(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
