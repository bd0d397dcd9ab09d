package io.rattan.node.transport;

import static io.rattan.node.netty.TestMessages.CODEC;
import static io.rattan.node.netty.TestMessages.closedByPeer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Challenge;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.net.Contact;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.Handshakes;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.netty.TransportListener.DropReason;
import io.rattan.node.netty.TransportListener.Refusal;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbound transport against a real {@link PeerServer} on loopback, each on its own loop as two nodes are; each
 * side has both (a transport and a server), since the handshake needs both.
 */
class NettyTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final EventLoopGroup serverGroup = newGroup("server-node");
    private final EventLoopGroup clientGroup = newGroup("client-node");
    private final EventLoop clientLoop = clientGroup.next();
    private final List<Envelope> received = new CopyOnWriteArrayList<>();
    private final List<Boolean> receivedOnServerLoop = new CopyOnWriteArrayList<>();
    private final RecordingListener clientEvents = new RecordingListener();
    private PeerServer server;
    private NettyTransport serverTransport;
    private NettyTransport transport;
    private PeerServer clientServer;
    private Contact client;

    /** The kind of loop the two nodes run on: epoll where available here; NIO in {@link NettyTransportNioTest}. */
    EventLoopGroup newGroup(String name) {
        return EventLoops.newGroup(1, name);
    }

    @BeforeEach
    void start() throws IOException {
        EventLoop serverLoop = serverGroup.next();
        serverTransport = new NettyTransport(serverLoop, CODEC, "server", TransportListener.NONE);
        server = new PeerServer(serverLoop, new InetSocketAddress("127.0.0.1", 0), CODEC, envelope -> {
            receivedOnServerLoop.add(serverLoop.inEventLoop());
            received.add(envelope);
        }, "server", serverTransport, TransportListener.NONE);
        serverTransport.identity(new Contact(TestMessages.key("server").id(), server()), TestMessages.key("server"));
        transport = new NettyTransport(clientLoop, CODEC, "client", clientEvents);
        clientServer = new PeerServer(clientLoop, new InetSocketAddress("127.0.0.1", 0), CODEC, e -> { }, "client",
                transport, TransportListener.NONE);
        client = new Contact(TestMessages.key("client").id(), new Address("127.0.0.1",
                clientServer.localAddress().getPort()));
        transport.identity(client, TestMessages.key("client"));
    }

    @AfterEach
    void stop() {
        transport.close();
        clientServer.close();
        serverTransport.close();
        server.close();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void deliversEnvelopesInOrderOnTheReceiversLoop() {
        List<Envelope> sent = new ArrayList<>();
        // Fewer frames than the queue bound, so that none is dropped however long the first connect takes.
        for (int batch = 0; batch < 10; batch++) {
            List<Envelope> envelopes = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                long id = batch * 100L + i;
                envelopes.add(id % 3 == 0 ? put(id, (int) (id % 2000)) : ping(id));
            }
            sent.addAll(envelopes);
            onClientLoop(() -> envelopes.forEach(e -> transport.send(server(), e)));
        }

        awaitReceived(sent.size());
        assertThat(received).containsExactlyElementsOf(sent);
        assertThat(receivedOnServerLoop).containsOnly(true);
        assertThat(transport.connectionCount()).isEqualTo(1);
        assertThat(server.connectionsAccepted()).isEqualTo(1);
        assertThat(transport.framesSent()).isEqualTo(sent.size());
        assertThat(transport.framesDropped()).isZero();
        long frameBytes = sent.stream().mapToLong(e -> 4 + CODEC.encode(e).length).sum();
        // The client's handshake: its hello, its challenge to the server (proving the server to it) and its answer,
        // which proves its id with a key and a signature.
        IdProof proof = new IdProof(Bytes.wrap(new byte[NodeKey.PUBLIC_KEY_BYTES]),
                Bytes.wrap(new byte[NodeKey.SIGNATURE_BYTES]));
        long handshakeBytes = 4 + CODEC.encode(new Envelope(client, 0, new Hello(MessageCodec.VERSION))).length
                + 4 + CODEC.encode(new Envelope(client, 0, new Challenge())).length
                + 4 + CODEC.encode(new Envelope(client, 0, new ChallengeAnswer(proof))).length;
        assertThat(clientEvents.bytesSent.get()).isEqualTo(frameBytes + handshakeBytes);
    }

    @Test
    void aPongCarriesItsSuggestionAcrossTheWire() {
        Contact suggested = new Contact(Id.ofName("suggested"), new Address("127.0.0.1", 4001));
        Envelope pong = new Envelope(client, 7, new Pong(List.of(suggested)));
        onClientLoop(() -> transport.send(server(), pong));

        awaitReceived(1);
        assertThat(received).containsExactly(pong);
        assertThat(((Pong) received.get(0).body()).suggestions()).containsExactly(suggested);
    }

    /**
     * A remove's ack (protocol 15) sent on a connection still being set up is queued, not dropped: before the welcome
     * the peer's version is unknown and the oldest (14) lacks the message, so it is sized in this node's own version
     * and written once the welcome says the peer reads it (a replica's first ack to a gateway it never spoke to).
     */
    @Test
    void aRemoveAckToAPeerNotYetWelcomedIsQueuedAndDelivered() {
        Envelope ack = new Envelope(client, 7, new RemoveAck(Id.ofName("key"), Bytes.utf8("v").sha256()));
        onClientLoop(() -> transport.send(server(), ack));

        awaitReceived(1);
        assertThat(received).containsExactly(ack);
        assertThat(transport.framesDropped()).isZero();
    }

    @Test
    void reconnectsAfterTheServerClosesTheConnection() {
        onClientLoop(() -> transport.send(server(), ping(1)));
        awaitReceived(1);

        server.closeConnections();
        // The transport notices the close and forgets the connection, so that the next send reconnects.
        await().atMost(WAIT).until(() -> transport.connectionCount() == 0);
        onClientLoop(() -> {
            transport.send(server(), ping(2));
            transport.send(server(), ping(3));
        });

        awaitReceived(3);
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L, 2L, 3L);
        assertThat(server.connectionsAccepted()).isEqualTo(2);
        assertThat(transport.connectionCount()).isEqualTo(1);
    }

    @Test
    void failedConnectDropsQueuedFramesAndTheNextSendTriesAgain() throws IOException {
        Address nobody = freePortNobodyListensOn();

        onClientLoop(() -> {
            for (int i = 0; i < 5; i++) {
                transport.send(nobody, ping(i));
            }
        });

        await().atMost(WAIT).until(() -> transport.framesDropped() == 5 && transport.connectionCount() == 0);
        assertThat(clientEvents.drops).containsOnlyKeys(DropReason.CONNECTION_LOST);

        // The failure is forgotten: the same transport still reaches a live peer, and retries the dead one.
        onClientLoop(() -> {
            transport.send(server(), ping(10));
            transport.send(nobody, ping(11));
        });
        await().atMost(WAIT).until(() -> received.size() == 1 && transport.framesDropped() == 6);
        assertThat(received.get(0).requestId()).isEqualTo(10L);
    }

    @Test
    void haltWritesNothingMoreAndClosesConnections() {
        onClientLoop(() -> transport.send(server(), ping(1)));
        awaitReceived(1);

        transport.halt();
        onClientLoop(() -> {
            for (int i = 0; i < 10; i++) {
                transport.send(server(), ping(100 + i));
            }
        });

        // The server sees the connection close; nothing sent after the halt arrived before that.
        await().atMost(WAIT).until(() -> server.connectionCount() == 0);
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L);
        assertThat(transport.framesSentAfterHalt()).isZero();
        assertThat(transport.framesDropped()).isEqualTo(10);
        assertThat(transport.connectionCount()).isZero();
    }

    @Test
    void haltLosesFramesWrittenButNotYetFlushed() {
        onClientLoop(() -> transport.send(server(), ping(1)));
        awaitReceived(1);

        // As in a crash, frames the node sent in the same loop turn as the halt never leave the process.
        onClientLoop(() -> {
            transport.send(server(), ping(2));
            transport.send(server(), ping(3));
            transport.halt();
        });

        await().atMost(WAIT).until(() -> server.connectionCount() == 0);
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L);
        assertThat(transport.framesSentAfterHalt()).isZero();
    }

    @Test
    void closeDrainsWhatWasWrittenBeforeClosing() {
        onClientLoop(() -> {
            for (int i = 0; i < 500; i++) {
                transport.send(server(), put(i, 1000));
            }
        });
        transport.close();

        awaitReceived(500);
        onClientLoop(() -> transport.send(server(), ping(999)));
        assertThat(transport.framesDropped()).isEqualTo(1);
    }

    @Test
    void dropsFramesWhileAPeerDoesNotRead() throws IOException {
        try (ServerSocket stalled = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Address to = new Address("127.0.0.1", stalled.getLocalPort());
            try (Socket accepted = connectAndAccept(to, stalled);
                 Socket back = Handshakes.welcome(accepted, new Contact(Id.ofName("stalled"), to))) {
                await().atMost(WAIT).until(() -> transport.welcomes() == 1);
                // The peer never reads: kernel buffers fill, then the connection's write buffer passes its high-water
                // mark, and from then on frames to that peer are dropped rather than buffered without bound.
                for (int round = 0; round < 400 && transport.framesDropped() == 0; round++) {
                    onClientLoop(() -> {
                        for (int i = 0; i < 20; i++) {
                            transport.send(to, put(i, 60_000));
                        }
                    });
                }
                assertThat(clientEvents.drops).containsKey(DropReason.UNWRITABLE);
                assertThat(accepted.isClosed()).isFalse();
            }
        }
    }

    @Test
    void sendOffTheLoopIsABug() {
        assertThatThrownBy(() -> transport.send(server(), ping(1))).isInstanceOf(IllegalStateException.class);
    }

    private Socket connectAndAccept(Address to, ServerSocket stalled) throws IOException {
        onClientLoop(() -> transport.send(to, ping(0)));
        return stalled.accept();
    }

    @Test
    void anAddressWhereNoNodeListensGetsOneHelloAndNothingElse() throws IOException {
        transport.handshakeTimeoutMillis(1_000);
        try (ServerSocket sink = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Address to = new Address("127.0.0.1", sink.getLocalPort());
            onClientLoop(() -> {
                for (int i = 0; i < 50; i++) {
                    transport.send(to, put(i, 10_000));
                }
            });
            try (Socket accepted = sink.accept()) {
                accepted.setSoTimeout(20_000);
                Envelope hello = TestMessages.readFrame(accepted);
                // In the oldest version a listener may speak, naming the newest this node speaks (a rolling upgrade).
                assertThat(hello.body()).isEqualTo(new Hello(MessageCodec.VERSION_OLDEST));
                assertThat(hello.requestId()).isEqualTo(MessageCodec.VERSION);
                assertThat(hello.sender()).isEqualTo(client);
                // No welcome: nothing more comes, and the connection is given up after the handshake timeout.
                assertThat(closedByPeer(accepted)).isTrue();
            }
            await().atMost(WAIT).until(() -> transport.connectionCount() == 0);
            // Within the hello interval the address is not dialed again; what is sent to it is dropped.
            onClientLoop(() -> transport.send(to, ping(99)));
            assertThat(clientEvents.drops).containsKeys(DropReason.UNVERIFIED);
            assertThat(transport.framesSent()).isZero();
            assertThat(transport.connectionCount()).isZero();
        }
    }

    @Test
    void overloadWhileConnectingShedsTheOldestQueuedFrames() throws IOException {
        int extra = 100;
        int sent = NettyTransport.PENDING_FRAMES_MAX + extra;
        try (ServerSocket slow = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Address to = new Address("127.0.0.1", slow.getLocalPort());
            // All in one loop task: the connection cannot open meanwhile, so every frame queues.
            onClientLoop(() -> {
                for (int i = 0; i < sent; i++) {
                    transport.send(to, ping(i));
                }
            });
            assertThat(clientEvents.drops.get(DropReason.SHED)).hasValue(extra);
            try (Socket accepted = slow.accept();
                 Socket back = Handshakes.welcome(accepted, new Contact(Id.ofName("slow"), to))) {
                List<Long> ids = new ArrayList<>();
                while (ids.size() < NettyTransport.PENDING_FRAMES_MAX) {
                    Envelope e = TestMessages.readFrame(accepted);
                    if (e.body() instanceof Ping) {
                        ids.add(e.requestId());
                    }
                }
                // The newest frames went, in order; the oldest were shed to make room for them.
                assertThat(ids).containsExactlyElementsOf(
                        LongStream.range(extra, sent).boxed().collect(Collectors.toList()));
            }
        }
        assertThat(clientEvents.drops).doesNotContainKey(DropReason.QUEUE_FULL);
    }

    @Test
    void atTheOutboundBoundTheLeastRecentlyUsedConnectionCloses() throws IOException {
        RecordingListener events = new RecordingListener();
        NettyTransport bounded = new NettyTransport(clientLoop, CODEC, "bounded", events, 2);
        bounded.identity(client, TestMessages.key("client"));
        // No welcome ever comes from these sinks: only the bound can close a connection within this test.
        bounded.handshakeTimeoutMillis(120_000);
        java.net.InetAddress loopback = java.net.InetAddress.getLoopbackAddress();
        try (ServerSocket a = new ServerSocket(0, 50, loopback); ServerSocket b = new ServerSocket(0, 50, loopback);
             ServerSocket c = new ServerSocket(0, 50, loopback)) {
            Address toA = new Address("127.0.0.1", a.getLocalPort());
            Address toB = new Address("127.0.0.1", b.getLocalPort());
            Address toC = new Address("127.0.0.1", c.getLocalPort());
            onClientLoop(() -> bounded.send(toA, ping(1)));
            onClientLoop(() -> bounded.send(toB, ping(2)));
            // A is used again: B is now the least recently used.
            onClientLoop(() -> bounded.send(toA, ping(3)));
            try (Socket fromA = a.accept(); Socket fromB = b.accept()) {
                fromA.setSoTimeout((int) WAIT.toMillis());
                onClientLoop(() -> bounded.send(toC, ping(4)));
                try (Socket fromC = c.accept()) {
                    fromB.setSoTimeout((int) WAIT.toMillis());
                    assertThat(closedByPeer(fromB)).isTrue();
                    assertThat(TestMessages.readFrame(fromC).body()).isEqualTo(new Hello(MessageCodec.VERSION_OLDEST));
                    assertThat(bounded.connectionsEvicted()).isEqualTo(1);
                    assertThat(events.refusals.get(Refusal.OUTBOUND_CONNECTIONS)).hasValue(1);
                    // A is still open: sending to it again opens nothing and closes nothing.
                    onClientLoop(() -> bounded.send(toA, ping(5)));
                    assertThat(bounded.connectionCount()).isEqualTo(2);
                    assertThat(bounded.connectionsEvicted()).isEqualTo(1);
                    assertThat(TestMessages.readFrame(fromA).body()).isEqualTo(new Hello(MessageCodec.VERSION_OLDEST));
                }
            }
        } finally {
            bounded.halt();
        }
    }

    @Test
    void claimsOfAnAddressThatNeverWelcomesDrawOneChallengeAndNoNewDial() throws IOException {
        try (ServerSocket sink = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Address claimed = new Address("127.0.0.1", sink.getLocalPort());
            // As the peer server does for each hello claiming this address.
            onClientLoop(() -> {
                for (int i = 0; i < 20; i++) {
                    transport.challenge(claimed, 1000 + i);
                }
            });
            try (Socket accepted = sink.accept()) {
                accepted.setSoTimeout((int) WAIT.toMillis());
                assertThat(TestMessages.readFrame(accepted).body()).isEqualTo(new Hello(MessageCodec.VERSION_OLDEST));
                Envelope challenge = TestMessages.readFrame(accepted);
                assertThat(challenge.body()).isEqualTo(new Challenge());
                assertThat(challenge.requestId()).isEqualTo(1000);
                assertThat(clientEvents.drops.get(DropReason.UNVERIFIED)).hasValue(19);
                // The sink closes without a welcome: within the hello interval a new claim dials nothing.
            }
            await().atMost(WAIT).until(() -> transport.connectionCount() == 0);
            onClientLoop(() -> transport.challenge(claimed, 2000));
            assertThat(transport.connectionCount()).isZero();
            assertThat(clientEvents.drops.get(DropReason.UNVERIFIED)).hasValue(20);
        }
    }

    /** Waits until {@code n} envelopes arrived; on timeout, says what the transport saw. */
    private void awaitReceived(int n) {
        try {
            await().atMost(WAIT).until(() -> received.size() >= n);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("received " + received.size() + " of " + n + "; transport sent "
                    + transport.framesSent() + ", dropped " + clientEvents.drops + ", connections "
                    + transport.connectionCount() + "; server accepted " + server.connectionsAccepted(), e);
        }
    }

    private Envelope ping(long requestId) {
        return new Envelope(client, requestId, new Ping());
    }

    private Envelope put(long requestId, int valueBytes) {
        Envelope e = TestMessages.put(requestId, valueBytes);
        return new Envelope(client, requestId, e.body());
    }

    private Address server() {
        return new Address("127.0.0.1", server.localAddress().getPort());
    }

    private void onClientLoop(Runnable task) {
        clientLoop.submit(task).syncUninterruptibly();
    }

    private static Address freePortNobodyListensOn() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return new Address("127.0.0.1", s.getLocalPort());
        }
    }

    /** Records what the transport reports. */
    static final class RecordingListener implements TransportListener {
        final AtomicLong bytesSent = new AtomicLong();
        final Map<DropReason, AtomicLong> drops = new ConcurrentHashMap<>();
        final Map<Refusal, AtomicLong> refusals = new ConcurrentHashMap<>();

        @Override
        public void refused(Refusal refusal) {
            refusals.computeIfAbsent(refusal, r -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void bytesSent(long bytes) {
            bytesSent.addAndGet(bytes);
        }

        @Override
        public void frameDropped(DropReason reason) {
            drops.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
        }
    }
}
