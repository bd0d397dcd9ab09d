package io.rattan.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.net.Contact;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.netty.TestMessages;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between nodes, on real nodes over real sockets: the cluster's nodes join and serve each other; a node
 * without a certificate of the cluster's CA cannot join (nor be answered on the peer port); a member cannot claim
 * another member's id; a revoked node is cut off while running and cannot rejoin; a node whose certificate is not
 * its key's does not start.
 */
class PeerTlsNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final char[] PASSWORD = "test".toCharArray();

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(38);
    private ClusterCa ca;

    @AfterEach
    void stop() {
        nodes.forEach(RattanNode::halt);
    }

    @Test
    void membersJoinAndServeWhileNodesWithoutTheCasCertificateCannotJoin() throws Exception {
        ca = newCa("ca");
        RattanNode a = start(member("a", null));
        RattanNode b = start(member("b", null).withBootstrap(List.of(a.contact().address())));
        RattanNode c = start(member("c", null).withBootstrap(List.of(a.contact().address())));
        awaitJoined(b, c);
        try (RattanClient client = RattanClient.builder().gateway(gateway(a)).build();
             RattanClient other = RattanClient.builder().gateway(gateway(c)).build()) {
            Id key = Id.ofName("tls");
            assertThat(client.putSync(key, "over TLS".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(5))
                    .replicas()).isGreaterThanOrEqualTo(2);
            GetResult got = other.getSync(key);
            assertThat(got.values()).hasSize(1);
        }

        // A node in plaintext tries to join through a: a refuses its bytes as TLS.
        double failedBefore = handshakesFailed(a);
        RattanNode plain = start(NodeOptions.local(dir.resolve("plain")).withBootstrap(List.of(a.contact().address())));
        Awaitility.await().atMost(WAIT).until(() -> handshakesFailed(a) > failedBefore);
        // One with a certificate of another CA tries too: it refuses a's certificate, as a refuses its.
        ClusterCa ours = ca;
        ca = newCa("other-ca");
        RattanNode stranger = start(member("stranger", null).withBootstrap(List.of(a.contact().address())));
        ca = ours;
        Awaitility.await().atMost(WAIT).until(() -> handshakesFailed(stranger) > 0);
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(WAIT)
                .until(() -> !plain.isJoined() && !stranger.isJoined());
        assertThat(a.status().leafSet()).containsExactlyInAnyOrder(b.contact(), c.contact());

        // A raw frame in plaintext is not answered: the connection closes.
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress("127.0.0.1", a.contact().address().port()), 10_000);
            raw.setSoTimeout(30_000);
            TestMessages.writeFrame(raw, TestMessages.put(1, 16));
            assertThat(TestMessages.closedByPeer(raw)).isTrue();
        }
    }

    @Test
    void aMemberCannotClaimAnotherMembersId() throws Exception {
        ca = newCa("ca");
        RattanNode a = start(member("a", null));
        RattanNode b = start(member("b", null).withBootstrap(List.of(a.contact().address())));
        awaitJoined(b);
        // m holds a certificate of the cluster's CA for its own key, and claims b's id over it.
        NodeKey m = NodeKey.draw(new SecureRandom());
        X509Certificate mCert = ca.issueNode(m.publicKey(), Duration.ofDays(1), List.of());
        double refusedBefore = unprovenIdRefusals(a);
        try (SSLSocket tls = (SSLSocket) sslContext(m, mCert).getSocketFactory().createSocket()) {
            tls.connect(new InetSocketAddress("127.0.0.1", a.contact().address().port()), 10_000);
            tls.setSoTimeout(30_000);
            tls.startHandshake();
            Contact claimed = new Contact(b.contact().id(), new Address("127.0.0.1", 1), 1);
            TestMessages.writeFrame(tls, new Envelope(claimed, MessageCodec.VERSION, new Hello(MessageCodec.VERSION)));
            assertThat(TestMessages.closedByPeer(tls)).isTrue();
        }
        assertThat(unprovenIdRefusals(a)).isEqualTo(refusedBefore + 1);
        assertThat(a.status().leafSet()).containsExactly(b.contact());

        // A client's certificate of the same CA does not pass for a node's: the handshake itself is refused.
        Path clients = dir.resolve("clients");
        ca.certifyClient(clients, "app", Duration.ofDays(1), new SecureRandom());
        NodeKey app = NodeKeyFile.read(clients.resolve("app.key")).orElseThrow();
        X509Certificate appCert = CertificatePem.read(clients.resolve("app.crt")).get(0);
        double failedBefore = handshakesFailed(a);
        try (SSLSocket tls = (SSLSocket) sslContext(app, appCert).getSocketFactory().createSocket()) {
            tls.connect(new InetSocketAddress("127.0.0.1", a.contact().address().port()), 10_000);
            tls.setSoTimeout(30_000);
            assertThat(refused(tls, new Contact(app.id(), new Address("127.0.0.1", 1), 1))).isTrue();
        }
        Awaitility.await().atMost(WAIT).until(() -> handshakesFailed(a) > failedBefore);
    }

    @Test
    void aRevokedNodeIsCutOffAndCannotRejoin() throws Exception {
        ca = newCa("ca");
        Path revoked = dir.resolve("revoked.txt");
        Files.writeString(revoked, "# revoked nodes\n");
        RattanNode a = start(member("a", revoked));
        RattanNode b = start(member("b", revoked).withBootstrap(List.of(a.contact().address())));
        NodeOptions cOptions = member("c", revoked).withBootstrap(List.of(a.contact().address()));
        RattanNode c = start(cOptions);
        awaitJoined(b, c);
        Awaitility.await().atMost(WAIT).until(() -> a.status().leafSet().contains(c.contact())
                && b.status().leafSet().contains(c.contact()));

        Files.writeString(revoked, "# revoked nodes\n" + c.contact().id().toHex() + "  # c\n");
        Awaitility.await().atMost(WAIT).until(() -> !a.status().leafSet().contains(c.contact())
                && !b.status().leafSet().contains(c.contact()));
        assertThat(cutOff(a) + cutOff(b)).isGreaterThanOrEqualTo(1);

        // Restarted, c cannot join again: its own start refuses, as its id is in the list it is given.
        c.halt();
        assertThatThrownBy(() -> start(cOptions)).hasMessageContaining("revoked");
        // Given an older list, it starts, but its members refuse it.
        double failedBefore = handshakesFailed(a);
        RattanNode again = start(cOptions.withTls(cOptions.tls().withRevoked(null)));
        // Only c's certificate can fail a handshake at a now: every other peer is a trusted member.
        Awaitility.await().atMost(WAIT).until(() -> handshakesFailed(a) > failedBefore);
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> !again.isJoined());
        assertThat(a.status().leafSet()).containsExactly(b.contact());
    }

    @Test
    void aNodeWhoseCertificateIsNotItsKeysDoesNotStart() throws Exception {
        ca = newCa("ca");
        NodeOptions x = member("x", null);
        Path other = dir.resolve("y");
        ca.certifyNode(other, Duration.ofDays(1), List.of(), new SecureRandom());
        Files.copy(other.resolve(TlsFiles.NODE_CERT), x.tls().cert(), StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> start(x)).hasMessageContaining("not this node");
    }

    private ClusterCa newCa(String name) throws IOException {
        ClusterCa made = ClusterCa.create(name, Duration.ofDays(1), random);
        made.write(dir.resolve(name));
        return made;
    }

    /** Options of a node certified by {@link #ca}, trusting it. */
    private NodeOptions member(String name, Path revoked) throws IOException {
        Path data = dir.resolve(name);
        ca.certifyNode(data, Duration.ofDays(1), List.of(), new SecureRandom());
        Path caFile = dir.resolve(name + "-trusts.crt");
        Files.writeString(caFile, CertificatePem.encode(ca.certificate()));
        return NodeOptions.local(data).withTls(TlsFiles.inDataDir(caFile, data).withRevoked(revoked));
    }

    private RattanNode start(NodeOptions options) throws IOException {
        RattanNode node = RattanNode.start(options);
        nodes.add(node);
        return node;
    }

    private static void awaitJoined(RattanNode... joiners) {
        for (RattanNode n : joiners) {
            Awaitility.await().atMost(WAIT).until(n::isJoined);
        }
    }

    private static Address gateway(RattanNode n) {
        return new Address("127.0.0.1", n.gatewayAddress().getPort());
    }

    private static double handshakesFailed(RattanNode n) {
        return n.meterRegistry().get("rattan.peer.tls.handshakes.failed").functionCounter().count();
    }

    private static double cutOff(RattanNode n) {
        return n.meterRegistry().get("rattan.peer.tls.revoked.closed").functionCounter().count();
    }

    private static double unprovenIdRefusals(RattanNode n) {
        Counter c = n.meterRegistry().find("rattan.peer.frames.refused").tag("reason", "unproven_id").counter();
        return c == null ? 0 : c.count();
    }

    /** Whether a hello claiming {@code claimed} on {@code tls} goes unanswered: the connection closes, or fails. */
    private static boolean refused(SSLSocket tls, Contact claimed) {
        try {
            tls.startHandshake();
            TestMessages.writeFrame(tls, new Envelope(claimed, MessageCodec.VERSION, new Hello(MessageCodec.VERSION)));
            return TestMessages.closedByPeer(tls);
        } catch (IOException e) {
            return true;
        }
    }

    private SSLContext sslContext(NodeKey key, X509Certificate cert) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("node", ClusterCa.privateKey(key), PASSWORD, new X509Certificate[] {cert});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
        return context;
    }
}
