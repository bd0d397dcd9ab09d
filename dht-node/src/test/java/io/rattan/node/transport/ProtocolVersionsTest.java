package io.rattan.node.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.net.Contact;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade on the wire: real peers on loopback (a transport and a peer server each, on a loop each), speaking
 * {@link MessageCodec#VERSION} or told to speak {@link MessageCodec#VERSION_OLDEST}, as a node of the previous release
 * does (it reads that version only, and closes a connection on any other). Each reaches the other at the first
 * connection whichever dials first, in the older version; two new ones learn that they share the newest.
 */
class ProtocolVersionsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final MessageCodec NEW = new MessageCodec();
    private static final MessageCodec OLD = NEW.at(MessageCodec.VERSION_OLDEST);

    private final List<Peer> peers = new ArrayList<>();

    @AfterEach
    void stop() {
        for (Peer p : peers) {
            p.close();
        }
    }

    @Test
    void aNewDialerIsHeardByAnOldListenerAtTheFirstConnection() throws IOException {
        Peer newer = peer("new", NEW);
        Peer older = peer("old", OLD);

        newer.send(older, 2);
        await().atMost(WAIT).until(() -> older.received.size() == 2);
        // The old node's dial-back hello named no newer version than its own: the new one speaks that to it.
        assertThat(newer.transport.peersSpeakingOlder()).isEqualTo(1);
        older.send(newer, 1);
        await().atMost(WAIT).until(() -> newer.received.size() == 1);
        assertThat(newer.transport.welcomes()).as("no connection was refused").isEqualTo(1);
        assertThat(older.transport.welcomes()).isEqualTo(1);
    }

    @Test
    void anOldDialerIsAnsweredInItsVersion() throws IOException {
        Peer newer = peer("new", NEW);
        Peer older = peer("old", OLD);

        // The new listener's challenge goes back in the old version: the old dialer's handshake completes at once.
        older.send(newer, 1);
        await().atMost(WAIT).until(() -> newer.received.size() == 1);
        assertThat(newer.transport.peersSpeakingOlder()).isEqualTo(1);
        newer.send(older, 1);
        await().atMost(WAIT).until(() -> older.received.size() == 1);
        assertThat(older.transport.welcomes()).isEqualTo(1);
        assertThat(newer.transport.welcomes()).isEqualTo(1);
    }

    @Test
    void twoNewPeersLearnThatTheyShareTheNewest() throws IOException {
        Peer a = peer("a", NEW);
        Peer b = peer("b", NEW);

        a.send(b, 1);
        await().atMost(WAIT).until(() -> b.received.size() == 1);
        b.send(a, 1);
        await().atMost(WAIT).until(() -> a.received.size() == 1);
        assertThat(a.transport.peersSpeakingOlder()).isZero();
        assertThat(a.transport.versions().codecFor(b.contact.address()).version()).isEqualTo(MessageCodec.VERSION);
        assertThat(b.transport.versions().codecFor(a.contact.address()).version()).isEqualTo(MessageCodec.VERSION);
        assertThat(PeerVersions.newestOf(0, MessageCodec.VERSION_OLDEST)).as("a hello of the previous release")
                .isEqualTo(MessageCodec.VERSION_OLDEST);
    }

    @Test
    void aHelloThatNeverProvesItsClaimDoesNotChooseWhatIsWrittenToThePeer() throws Exception {
        Peer newer = peer("new", NEW);
        Peer older = peer("old", OLD);
        newer.send(older, 1);
        await().atMost(WAIT).until(() -> older.received.size() == 1 && newer.transport.peersSpeakingOlder() == 1);

        // A stranger on the old peer's IP claims its address and the newest version, and never answers the challenge.
        try (Socket stranger = new Socket("127.0.0.1", newer.server.localAddress().getPort())) {
            TestMessages.writeFrame(stranger, new Envelope(older.contact, MessageCodec.VERSION,
                    new Hello(MessageCodec.VERSION)));
            newer.send(older, 1);
            await().atMost(WAIT).until(() -> older.received.size() == 2);
            assertThat(newer.transport.versions().codecFor(older.contact.address()).version())
                    .isEqualTo(MessageCodec.VERSION_OLDEST);
        }
    }

    /** A message the older version lacks (a remove's ack to a gateway of 14) is dropped, and the connection goes on. */
    @Test
    void aMessageTheOlderPeerLacksIsDroppedNotWritten() throws IOException {
        Peer newer = peer("new", NEW);
        Peer older = peer("old", OLD);
        newer.send(older, 1);
        await().atMost(WAIT).until(() -> older.received.size() == 1 && newer.transport.peersSpeakingOlder() == 1);

        newer.loop.submit(() -> newer.transport.send(older.contact.address(), new Envelope(newer.contact, 9,
                new RemoveAck(Id.ofName("key"), Bytes.utf8("v").sha256())))).syncUninterruptibly();
        newer.send(older, 1);
        await().atMost(WAIT).until(() -> older.received.size() == 2);
        assertThat(older.received).extracting(e -> e.body().type()).containsOnly(MessageType.PING);
        assertThat(newer.transport.framesDropped()).isEqualTo(1);
    }

    private Peer peer(String name, MessageCodec codec) throws IOException {
        Peer p = new Peer(name, codec);
        peers.add(p);
        return p;
    }

    /** One side: a transport and a peer server on one loop, as a node has. */
    private static final class Peer {
        final EventLoopGroup group;
        final EventLoop loop;
        final NettyTransport transport;
        final PeerServer server;
        final Contact contact;
        final List<Envelope> received = new CopyOnWriteArrayList<>();

        Peer(String name, MessageCodec codec) throws IOException {
            group = EventLoops.newGroup(1, name);
            loop = group.next();
            transport = new NettyTransport(loop, codec, name, TransportListener.NONE);
            server = new PeerServer(loop, new InetSocketAddress("127.0.0.1", 0), codec, received::add, name,
                    transport, TransportListener.NONE);
            contact = new Contact(TestMessages.key(name).id(), new Address("127.0.0.1",
                    server.localAddress().getPort()));
            transport.identity(contact, TestMessages.key(name));
        }

        /** Sends {@code count} pings to {@code to}, on this side's loop. */
        void send(Peer to, int count) {
            loop.submit(() -> {
                for (int i = 0; i < count; i++) {
                    transport.send(to.contact.address(), new Envelope(contact, i, new Ping()));
                }
            }).syncUninterruptibly();
        }

        void close() {
            transport.close();
            server.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
