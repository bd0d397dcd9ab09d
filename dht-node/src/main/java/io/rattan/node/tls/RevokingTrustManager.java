package io.rattan.node.tls;

import io.rattan.api.Id;
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
 * Trusts a peer's certificate when the cluster CA issued it (the JDK's PKIX checks: signature, validity, key usage),
 * it is a node's (for both TLS server and client authentication, as {@code rattan certs node} makes them; a
 * client's is not) and it carries a node key whose id is not revoked. Both ends of a peer connection use it, so a
 * revoked node can neither dial nor be dialed. The revoked ids are read at each check, so that a new list applies
 * at once.
 */
final class RevokingTrustManager extends X509ExtendedTrustManager {

    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    private final X509ExtendedTrustManager pkix;
    private final Supplier<Set<Id>> revoked;

    private RevokingTrustManager(X509ExtendedTrustManager pkix, Supplier<Set<Id>> revoked) {
        this.pkix = pkix;
        this.revoked = revoked;
    }

    /** Trusts what the CA certificates {@code cas} issued, but for the ids {@code revoked} gives at each check. */
    static RevokingTrustManager of(List<X509Certificate> cas, Supplier<Set<Id>> revoked) throws IOException {
        return new RevokingTrustManager(pkix(cas), revoked);
    }

    /** The JDK's PKIX trust manager of the CA certificates {@code cas}: what they issued, unexpired. */
    static X509ExtendedTrustManager pkix(List<X509Certificate> cas) throws IOException {
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
                    return x;
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
        // A node's certificate serves both ends of a connection; a client's (rattan certs client) only authenticates
        // a client, and must not pass for a node's, even when one CA signs both.
        List<String> purposes = chain[0].getExtendedKeyUsage();
        if (purposes == null || !purposes.contains(SERVER_AUTH) || !purposes.contains(CLIENT_AUTH)) {
            throw new CertificateException("'" + chain[0].getSubjectX500Principal() + "' is not a node's certificate "
                    + "(a node's serves both TLS server and client authentication)");
        }
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
