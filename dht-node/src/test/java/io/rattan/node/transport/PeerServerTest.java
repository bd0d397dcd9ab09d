package io.rattan.node.transport;

import static io.rattan.node.netty.TestMessages.CODEC;
import static io.rattan.node.netty.TestMessages.closedByPeer;
import static io.rattan.node.netty.TestMessages.ping;
import static io.rattan.node.netty.TestMessages.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.netty.TransportListener;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The peer server treats its input as hostile: a bad connection is closed, the others keep being served. */
class PeerServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private final EventLoopGroup group = EventLoops.newGroup(1, "peer-server-test");
    private final List<Envelope> received = new CopyOnWriteArrayList<>();
    private final AtomicLong rejectedReported = new AtomicLong();
    private PeerServer server;

    @BeforeEach
    void start() throws IOException {
        server = new PeerServer(group.next(), new InetSocketAddress("127.0.0.1", 0), CODEC, received::add, "test",
                new TransportListener() {
                    @Override
                    public void frameRejected() {
                        rejectedReported.incrementAndGet();
                    }
                });
    }

    @AfterEach
    void stop() {
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void undecodableFrameClosesItsConnectionOnly() throws IOException {
        try (Socket good = connect(); Socket bad = connect()) {
            writeFrame(good, ping(1));
            await().atMost(WAIT).until(() -> received.size() == 1);

            byte[] garbage = new byte[32];
            Arrays.fill(garbage, (byte) 0xFF);
            TestMessages.writeRaw(bad, garbage);

            assertThat(closedByPeer(bad)).isTrue();
            writeFrame(good, ping(2));
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
        byte[] good = CODEC.encode(ping(1));
        byte[] later = CODEC.encode(ping(3));
        ByteBuf stream = Unpooled.buffer();
        stream.writeInt(good.length).writeBytes(good);
        stream.writeInt(3).writeBytes(new byte[] {9, 9, 9});
        stream.writeInt(later.length).writeBytes(later);
        byte[] all = new byte[stream.readableBytes()];
        stream.readBytes(all);
        stream.release();

        try (Socket socket = connect()) {
            // One write, so that the three frames are likely read together.
            socket.getOutputStream().write(all);
            socket.getOutputStream().flush();
            assertThat(closedByPeer(socket)).isTrue();
        }
        assertThat(received).extracting(Envelope::requestId).containsExactly(1L);
        assertThat(server.framesRejected()).isEqualTo(1);
    }

    @Test
    void consumerFailureDoesNotCloseTheConnection() throws IOException {
        EventLoopGroup other = EventLoops.newGroup(1, "failing-consumer");
        List<Envelope> seen = new CopyOnWriteArrayList<>();
        try (PeerServer failing = new PeerServer(other.next(), new InetSocketAddress("127.0.0.1", 0), CODEC,
                envelope -> {
                    seen.add(envelope);
                    if (envelope.requestId() == 1) {
                        throw new IllegalStateException("node bug (expected by the test)");
                    }
                }, "test", TransportListener.NONE);
             Socket socket = new Socket("127.0.0.1", failing.localAddress().getPort())) {
            writeFrame(socket, ping(1));
            writeFrame(socket, ping(2));
            await().atMost(WAIT).until(() -> seen.size() == 2);
            assertThat(failing.framesRejected()).isZero();
            assertThat(failing.connectionCount()).isEqualTo(1);
        } finally {
            other.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void handlerOnAnEmbeddedChannelClosesOnAFrameTheCodecRefuses() {
        List<Envelope> got = new CopyOnWriteArrayList<>();
        AtomicLong rejected = new AtomicLong();
        MessageCodec small = new MessageCodec(64);
        EmbeddedChannel channel = new EmbeddedChannel(new PeerInitializer(small, got::add, "embedded",
                new TransportListener() {
                    @Override
                    public void frameRejected() {
                        rejected.incrementAndGet();
                    }
                }, io.rattan.node.limits.ConnectionLimits.defaults(), null));
        byte[] body = small.encode(ping(5));
        channel.writeInbound(Unpooled.buffer().writeInt(body.length).writeBytes(body));
        assertThat(got).extracting(Envelope::requestId).containsExactly(5L);
        assertThat(channel.isOpen()).isTrue();

        // Above this codec's 64-byte limit: refused on the length alone.
        channel.writeInbound(Unpooled.buffer().writeInt(65).writeBytes(new byte[65]));
        assertThat(channel.isOpen()).isFalse();
        assertThat(rejected.get()).isEqualTo(1);
        assertThat(got).hasSize(1);
        channel.finishAndReleaseAll();
    }

    private void assertServesANewConnection() throws IOException {
        int before = received.size();
        try (Socket fresh = connect()) {
            writeFrame(fresh, ping(42));
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
