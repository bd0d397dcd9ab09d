package io.rattan.node.transport;

import static io.rattan.node.netty.TestMessages.CODEC;
import static io.rattan.node.netty.TestMessages.closedByPeer;
import static io.rattan.node.netty.TestMessages.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Welcome;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.Handshakes;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.netty.TransportListener.RefusalReason;
import io.rattan.node.netty.TransportListener;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The peer server treats its input as hostile: a bad connection is closed, the others keep being served; and only
 * envelopes whose sender proved its claim in the handshake reach the node.
 */
class PeerServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private final EventLoopGroup group = EventLoops.newGroup(1, "peer-server-test");
    private final EventLoop loop = group.next();
    private final List<Envelope> received = new CopyOnWriteArrayList<>();
    private final AtomicLong rejectedReported = new AtomicLong();
    private final Map<RefusalReason, AtomicLong> refused = new ConcurrentHashMap<>();
    private NettyTransport transport;
    private PeerServer server;

    @BeforeEach
    void start() throws IOException {
        TransportListener listener = new TransportListener() {
            @Override
            public void frameRejected() {
                rejectedReported.incrementAndGet();
            }

            @Override
            public void peerFrameRefused(RefusalReason reason) {
                refused.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
            }
        };
        transport = new NettyTransport(loop, CODEC, "test", listener);
        server = new PeerServer(loop, new InetSocketAddress("127.0.0.1", 0), CODEC, received::add, "test",
                transport, listener);
        transport.identity(new Contact(TestMessages.key("server").id(), new Address("127.0.0.1",
                server.localAddress().getPort())), TestMessages.key("server"));
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void undecodableFrameClosesItsConnectionOnly() throws IOException {
        try (RawPeer good = prove("good"); Socket bad = connect()) {
            good.send(ping(good, 1));
            await().atMost(WAIT).until(() -> received.size() == 1);

            byte[] garbage = new byte[32];
            Arrays.fill(garbage, (byte) 0xFF);
            TestMessages.writeRaw(bad, garbage);

            assertThat(closedByPeer(bad)).isTrue();
            good.send(ping(good, 2));
            await().atMost(WAIT).until(() -> received.size() == 2);
        }
        assertThat(server.framesRejected()).isEqualTo(1);
        assertThat(rejectedReported.get()).isEqualTo(1);
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L, 2L);
    }

    @Test
    void oversizeLengthClosesTheConnectionBeforeReadingTheBody() throws IOException {
        try (Socket bad = connect()) {
            DataOutputStream out = new DataOutputStream(bad.getOutputStream());
            out.writeInt(CODEC.frameBytesMax() + 1);
            out.write(new byte[16]);
            out.flush();
            assertThat(closedByPeer(bad)).isTrue();
        }
        assertThat(server.framesRejected()).isEqualTo(1);
        assertServesANewConnection();
    }

    @Test
    void negativeLengthClosesTheConnection() throws IOException {
        try (Socket bad = connect()) {
            DataOutputStream out = new DataOutputStream(bad.getOutputStream());
            out.writeInt(-1);
            out.flush();
            assertThat(closedByPeer(bad)).isTrue();
        }
        assertThat(server.framesRejected()).isEqualTo(1);
        assertServesANewConnection();
    }

    @Test
    void framesBeforeTheBadOneAreDeliveredAndNoneAfterIt() throws IOException {
        try (RawPeer peer = prove("peer")) {
            byte[] good = CODEC.encode(ping(peer, 1));
            byte[] later = CODEC.encode(ping(peer, 3));
            ByteBuf stream = Unpooled.buffer();
            stream.writeInt(good.length).writeBytes(good);
            stream.writeInt(3).writeBytes(new byte[] {9, 9, 9});
            stream.writeInt(later.length).writeBytes(later);
            byte[] all = new byte[stream.readableBytes()];
            stream.readBytes(all);
            stream.release();

            // One write, so that the three frames are likely read together.
            peer.toNode.getOutputStream().write(all);
            peer.toNode.getOutputStream().flush();
            assertThat(closedByPeer(peer.toNode)).isTrue();
        }
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L);
        assertThat(server.framesRejected()).isEqualTo(1);
    }

    @Test
    void nothingBeforeTheHandshakeReachesTheNode() throws IOException {
        try (Socket stranger = connect()) {
            writeFrame(stranger, TestMessages.ping(1));
            writeFrame(stranger, TestMessages.ping(2));
            await().atMost(WAIT).until(() -> refusedCount(RefusalReason.UNVERIFIED) == 2);
        }
        assertServesANewConnection();
        assertThat(received).extracting(Envelope::requestId).containsExactly(42L);
    }

    @Test
    void aProvenConnectionCarriesOnlyItsOwnSender() throws IOException {
        Contact victim = new Contact(Id.ofName("victim"), new Address("127.0.0.1", 1));
        try (RawPeer peer = prove("attacker")) {
            peer.send(new Envelope(victim, 7, new Ping()));
            peer.send(new Envelope(new Contact(peer.contact.id(), victim.address()), 8, new Ping()));
            peer.send(ping(peer, 9));
            await().atMost(WAIT).until(() -> received.size() == 1);
        }
        assertThat(received).extracting(Envelope::requestId).containsExactly(9L);
        assertThat(refusedCount(RefusalReason.FORGED_SENDER)).isEqualTo(2);
    }

    @Test
    void aHelloClaimingAnotherIpIsRefusedAndNothingIsDialed() throws IOException {
        Contact elsewhere = new Contact(Id.ofName("elsewhere"), new Address("10.9.8.7", 4000));
        try (Socket liar = connect()) {
            writeFrame(liar, new Envelope(elsewhere, 0, new Hello(MessageCodec.VERSION)));
            assertThat(closedByPeer(liar)).isTrue();
        }
        assertThat(refusedCount(RefusalReason.BAD_HELLO)).isEqualTo(1);
        assertThat(transport.connectionCount()).isZero();
    }

    @Test
    void aHelloNamingAHostNameOrAnotherVersionIsRefused() throws IOException {
        Contact named = new Contact(Id.ofName("named"), new Address("localhost", 4000));
        Contact old = new Contact(Id.ofName("old"), new Address("127.0.0.1", 4000));
        try (Socket a = connect(); Socket b = connect(); Socket c = connect()) {
            writeFrame(a, new Envelope(named, 0, new Hello(MessageCodec.VERSION)));
            // A Hello whose version is not its frame's, and one naming as its newest a version this node does not read.
            writeFrame(b, new Envelope(old, 0, new Hello(MessageCodec.VERSION - 1)));
            writeFrame(c, new Envelope(old, MessageCodec.VERSION_OLDEST - 1, new Hello(MessageCodec.VERSION)));
            assertThat(closedByPeer(a)).isTrue();
            assertThat(closedByPeer(b)).isTrue();
            assertThat(closedByPeer(c)).isTrue();
        }
        assertThat(refusedCount(RefusalReason.BAD_HELLO)).isEqualTo(3);
    }

    @Test
    void aWrongAnswerClosesTheConnection() throws IOException {
        try (RawPeer peer = new RawPeer("guesser")) {
            peer.toNode = connect();
            writeFrame(peer.toNode, new Envelope(peer.contact, 0, new Hello(MessageCodec.VERSION)));
            peer.fromNode = peer.listener.accept();
            writeFrame(peer.toNode, new Envelope(peer.contact, 12345, new ChallengeAnswer(null)));
            assertThat(closedByPeer(peer.toNode)).isTrue();
        }
        assertThat(refusedCount(RefusalReason.BAD_ANSWER)).isEqualTo(1);
        assertThat(received).isEmpty();
    }

    /**
     * A peer of this version is taken only when its answer proves its id: signed by the key whose SHA-1 the id is,
     * over this challenge and this node. A member's id cannot be claimed by another: not with the claimant's own key,
     * not with the member's public key and another's signature, not with a proof the member made for someone else.
     */
    @Test
    void anIdIsTakenOnlyWithItsKeysProofOfThisChallenge() throws IOException {
        NodeKey member = TestMessages.key("member");
        NodeKey thief = TestMessages.key("thief");
        Contact someoneElse = new Contact(TestMessages.key("else").id(), new Address("127.0.0.1", 4000));
        List<BiFunction<Long, Contact, IdProof>> forgeries = List.of(
                (nonce, node) -> IdProofs.prove(thief, nonce, node),
                (nonce, node) -> new IdProof(member.publicKey(), IdProofs.prove(thief, nonce, node).signature()),
                (nonce, node) -> IdProofs.prove(member, nonce, someoneElse),
                (nonce, node) -> IdProofs.prove(member, nonce + 1, node),
                (nonce, node) -> null);
        for (BiFunction<Long, Contact, IdProof> forgery : forgeries) {
            try (RawPeer impostor = new RawPeer(member.id(), forgery)) {
                assertThatThrownBy(() -> impostor.dialAndProve(server.localAddress().getPort(), false))
                        .isInstanceOf(IOException.class);
            }
        }
        assertThat(refusedCount(RefusalReason.UNPROVEN_ID)).isEqualTo(forgeries.size());

        try (RawPeer owner = new RawPeer(member.id(), (nonce, node) -> IdProofs.prove(member, nonce, node))
                .dialAndProve(server.localAddress().getPort(), false)) {
            owner.send(ping(owner, 7));
            await().atMost(WAIT).until(() -> received.size() == 1);
        }
        assertThat(received).extracting(Envelope::sender).extracting(Contact::id).containsExactly(member.id());
    }

    /**
     * A peer that speaks only the version before the oldest this build speaks (13, whose handshake frames this build
     * still reads) is refused at its hello: this build speaks 14 and 15. One that answers without a proof is refused at
     * its answer.
     */
    @Test
    void aPeerOfAnOlderVersionOrAnAnswerWithoutProofIsRefused() throws IOException {
        int older = MessageCodec.VERSION_OLDEST - 1;
        Contact thirteen = new Contact(Id.ofName("thirteen"), new Address("127.0.0.1", 4000));
        try (Socket old = connect()) {
            TestMessages.writeFrameOf(old, new Envelope(thirteen, 0, new Hello(older)), older);
            assertThat(closedByPeer(old)).isTrue();
        }
        assertThat(refusedCount(RefusalReason.BAD_HELLO)).isEqualTo(1);
        try (RawPeer unproven = new RawPeer(Id.ofName("unproven"), null)) {
            assertThatThrownBy(() -> unproven.dialAndProve(server.localAddress().getPort(), false))
                    .isInstanceOf(IOException.class);
        }
        assertThat(refusedCount(RefusalReason.UNPROVEN_ID)).isEqualTo(1);
        NodeKey key = TestMessages.key("proven");
        try (RawPeer proven = new RawPeer(key.id(), TestProofs.prover(key))
                .dialAndProve(server.localAddress().getPort(), false)) {
            proven.send(ping(proven, 3));
            await().atMost(WAIT).until(() -> received.size() == 1);
        }
    }

    /**
     * A node of the previous release (14) writes its hello in 13, the oldest version it reads, and names 14 in its
     * hello's request id: it is challenged, answers in 14, which it shares with this node, with its proof, and is
     * welcomed in 14.
     */
    @Test
    void aNodeOfThePreviousReleaseIsWelcomedInAVersionItReads() throws IOException {
        int previous = MessageCodec.VERSION_OLDEST;
        NodeKey key = TestMessages.key("previous-release");
        try (RawPeer old = new RawPeer(key.id(), null)) {
            old.toNode = connect();
            TestMessages.writeFrameOf(old.toNode, new Envelope(old.contact, previous, new Hello(previous - 1)),
                    previous - 1);
            old.fromNode = old.listener.accept();
            old.fromNode.setSoTimeout((int) WAIT.toMillis());
            Envelope hello = Handshakes.expect(old.fromNode, MessageType.HELLO);
            Envelope challenge = Handshakes.expect(old.fromNode, MessageType.CHALLENGE);
            writeFrame(old.toNode, new Envelope(old.contact, challenge.requestId(), new ChallengeAnswer(
                    TestProofs.prover(key).apply(challenge.requestId(), hello.sender()))), TestMessages.PREVIOUS);
            byte[] welcome = TestMessages.readRaw(old.toNode);

            assertThat(welcome[0]).as("the welcome's version").isEqualTo((byte) previous);
            assertThat(CODEC.decode(welcome).body()).isEqualTo(new Welcome());
            old.send(ping(old, 5));
            await().atMost(WAIT).until(() -> received.size() == 1);
        }
        assertThat(refused).isEmpty();
    }

    @Test
    void consumerFailureDoesNotCloseTheConnection() throws IOException {
        EventLoopGroup other = EventLoops.newGroup(1, "failing-consumer");
        List<Envelope> seen = new CopyOnWriteArrayList<>();
        NettyTransport otherTransport = new NettyTransport(other.next(), CODEC, "failing", TransportListener.NONE);
        try (PeerServer failing = new PeerServer(other.next(), new InetSocketAddress("127.0.0.1", 0), CODEC,
                envelope -> {
                    seen.add(envelope);
                    if (envelope.requestId() == 1) {
                        throw new IllegalStateException("node bug (expected by the test)");
                    }
                }, "test", otherTransport, TransportListener.NONE);
             RawPeer peer = new RawPeer("peer")) {
            otherTransport.identity(new Contact(TestMessages.key("failing").id(), new Address("127.0.0.1",
                    failing.localAddress().getPort())), TestMessages.key("failing"));
            peer.dialAndProve(failing.localAddress().getPort(), false);
            peer.send(ping(peer, 1));
            peer.send(ping(peer, 2));
            await().atMost(WAIT).until(() -> seen.size() == 2);
            assertThat(failing.framesRejected()).isZero();
            assertThat(failing.connectionCount()).isEqualTo(1);
        } finally {
            otherTransport.close();
            other.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private long refusedCount(RefusalReason reason) {
        AtomicLong n = refused.get(reason);
        return n == null ? 0 : n.get();
    }

    private static Envelope ping(RawPeer from, long requestId) {
        return new Envelope(from.contact, requestId, new Ping());
    }

    private RawPeer prove(String name) throws IOException {
        return new RawPeer(name).dialAndProve(server.localAddress().getPort(), false);
    }

    private void assertServesANewConnection() throws IOException {
        int before = received.size();
        try (RawPeer fresh = prove("fresh")) {
            fresh.send(ping(fresh, 42));
            await().atMost(WAIT).until(() -> received.size() == before + 1);
        }
        assertThat(received.get(before).requestId()).isEqualTo(42L);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.localAddress().getPort());
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return socket;
    }
}
