package io.rattan.node.tls;

import com.google.common.net.InetAddresses;
import io.rattan.api.Bytes;
import io.rattan.core.id.NodeKey;
import io.rattan.core.util.Ed25519Pem;
import io.rattan.node.identity.NodeKeyFile;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A private cluster's certificate authority: an Ed25519 key and a self-signed certificate, kept in a directory as
 * {@value #CERT_FILE} (which every node is given) and {@value #KEY_FILE} (owner-only; kept off the nodes). It issues
 * node certificates whose public key is the node's own key ({@link NodeKey}), so that a certificate names exactly
 * one node id, SHA-1 of that key; what {@code rattan certs} runs. Immutable.
 */
public final class ClusterCa {

    /** The CA certificate's file name in the CA's directory. */
    public static final String CERT_FILE = "ca.crt";
    /** The CA key's file name in the CA's directory. */
    public static final String KEY_FILE = "ca.key";
    /** How long a certificate lasts unless told otherwise. */
    public static final Duration VALIDITY_DEFAULT = Duration.ofDays(365);
    // Certificates start an hour early, so that a host whose clock is a little behind accepts them at once.
    private static final Duration BACKDATE = Duration.ofHours(1);

    private final NodeKey key;
    private final X509Certificate certificate;
    private final RandomGenerator serials;

    private ClusterCa(NodeKey key, X509Certificate certificate, RandomGenerator serials) {
        this.key = key;
        this.certificate = certificate;
        this.serials = serials;
    }

    /** A new CA named {@code name} (its certificate's CN), its key drawn from {@code random}, a secure source. */
    public static ClusterCa create(String name, Duration validity, RandomGenerator random) {
        NodeKey key = NodeKey.draw(random);
        X500Name subject = new X500Name("CN=" + name);
        X509Certificate self = sign(key, subject, subject, key.publicKey(), validity, random, null, null);
        return new ClusterCa(key, self, random);
    }

    /**
     * The CA kept in {@code dir}.
     *
     * @throws IOException when a file is missing or unreadable, the key file is open to others, or the key is not
     *                     the certificate's
     */
    public static ClusterCa read(Path dir, RandomGenerator serials) throws IOException {
        Path keyFile = dir.resolve(KEY_FILE);
        NodeKey key = NodeKeyFile.read(keyFile, "the CA key")
                .orElseThrow(() -> new IOException("no CA key " + keyFile + " (rattan certs ca makes one)"));
        X509Certificate cert = CertificatePem.read(dir.resolve(CERT_FILE)).get(0);
        if (!PeerCertificates.publicKey(cert).equals(key.publicKey())) {
            throw new IOException(keyFile + " is not the key of " + dir.resolve(CERT_FILE));
        }
        return new ClusterCa(key, cert, serials);
    }

    /** Writes the CA to {@code dir} (created when missing); refuses to replace a CA already there. */
    public void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path certFile = dir.resolve(CERT_FILE);
        if (Files.exists(certFile)) {
            throw new IOException(certFile + " exists: a CA is never replaced (give another directory)");
        }
        NodeKeyFile.write(dir.resolve(KEY_FILE), key);
        CertificatePem.write(certFile, certificate);
    }

    /** The CA's own certificate, which nodes trust. */
    public X509Certificate certificate() {
        return certificate;
    }

    /**
     * A certificate for the node whose public key is {@code nodeKey}: its CN names the node id, and it serves both
     * ends of a peer connection (server and client authentication), and, naming the node's addresses and DNS names
     * in {@code names} (subject alternative names), its HTTPS port ({@code --client-tls-cert}).
     */
    public X509Certificate issueNode(Bytes nodeKey, Duration validity, List<String> names) {
        X500Name subject = new X500Name("CN=rattan node " + NodeKey.idOf(nodeKey).toHex());
        GeneralName[] alternatives = names.stream()
                .map(n -> new GeneralName(InetAddresses.isInetAddress(n) ? GeneralName.iPAddress : GeneralName.dNSName,
                        n))
                .toArray(GeneralName[]::new);
        return sign(key, X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()), subject, nodeKey,
                validity, serials, alternatives, null);
    }

    /**
     * A new client key and its certificate, named {@code name} (the certificate's CN, by which the client ports count
     * its rate and storage share), written to {@code dir} as {@code NAME.key} (owner-only, never replaced) and
     * {@code NAME.crt}; for TLS client authentication only.
     */
    public void certifyClient(Path dir, String name, Duration validity, RandomGenerator random) throws IOException {
        if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a client's name is 1..64 of A-Z a-z 0-9 . _ -, got '" + name + "'");
        }
        Files.createDirectories(dir);
        NodeKey client = NodeKey.draw(random);
        NodeKeyFile.write(dir.resolve(name + ".key"), client);
        CertificatePem.write(dir.resolve(name + ".crt"), sign(key,
                X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()), new X500Name("CN=" + name),
                client.publicKey(), validity, serials, null, KeyPurposeId.id_kp_clientAuth));
    }

    /**
     * Certifies the node whose data directory is {@code dataDir}: takes its key, or makes it as the node's first
     * start would, and writes its certificate there as {@value TlsFiles#NODE_CERT} (replacing an older one: a running
     * node takes the new one within {@link PeerTls#RELOAD_SECONDS} s).
     *
     * @return the node's key, whose id the certificate names
     */
    public NodeKey certifyNode(Path dataDir, Duration validity, List<String> names, RandomGenerator random)
            throws IOException {
        Files.createDirectories(dataDir);
        NodeKey node = NodeKeyFile.loadOrCreate(dataDir, random);
        Path file = dataDir.resolve(TlsFiles.NODE_CERT);
        Path temp = Files.createTempFile(dataDir, TlsFiles.NODE_CERT, ".tmp");
        try {
            CertificatePem.write(temp, issueNode(node.publicKey(), validity, names));
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        return node;
    }

    private static X509Certificate sign(NodeKey signer, X500Name issuer, X500Name subject, Bytes publicKey,
                                        Duration validity, RandomGenerator random, GeneralName[] names,
                                        KeyPurposeId only) {
        // A CA's certificate names no host and serves no purpose but signing; a client's only authenticates.
        boolean authority = names == null && only == null;
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("a certificate's validity must be positive, got " + validity);
        }
        Instant now = Instant.now();
        byte[] serial = new byte[16];
        random.nextBytes(serial);
        SubjectPublicKeyInfo info = new SubjectPublicKeyInfo(
                new AlgorithmIdentifier(EdECObjectIdentifiers.id_Ed25519), publicKey.toByteArray());
        X509v3CertificateBuilder builder = new X509v3CertificateBuilder(issuer, new BigInteger(1, serial),
                Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), subject, info);
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
            if (authority) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                builder.addExtension(Extension.extendedKeyUsage, false, only != null ? new ExtendedKeyUsage(only)
                        : new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth,
                            KeyPurposeId.id_kp_clientAuth}));
                if (names != null && names.length > 0) {
                    builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
                }
            }
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("Ed25519").build(privateKey(signer))));
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate: " + e.getMessage(), e);
        }
    }

    /** A client's TLS context that trusts what this CA issued: HTTPS to a node whose certificate it signed. */
    public SSLContext trustingContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {RevokingTrustManager.pkix(List.of(certificate))},
                    new SecureRandom());
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make a TLS context trusting the CA: " + e.getMessage(), e);
        }
    }

    /** {@code key}'s private half as the JDK's security providers take it. */
    static PrivateKey privateKey(NodeKey key) {
        try {
            return KeyFactory.getInstance("Ed25519").generatePrivate(
                    new PKCS8EncodedKeySpec(Ed25519Pem.pkcs8(key.seed())));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no Ed25519 (Java 15 or newer has): " + e.getMessage(), e);
        }
    }

}
