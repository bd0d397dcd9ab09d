package io.rattan.node.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.net.Contact;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import io.rattan.node.gateway.http.HttpGateway;
import io.rattan.node.netty.TransportListener.Refusal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, proof 3, on a real node through real sockets: thousands of idle sockets, slowloris on every port, a
 * non-reading HTTP pipeliner on a key with 256 values and fake sender ids at a high rate. Asserted: bounded
 * connections and maps, the heap back within 10% after a full GC, 100 of 100 honest connections accepted and a
 * canary get that keeps succeeding. Timeouts are configured short (an idle timeout of 2 s, a frame deadline of 1 s)
 * so that the attacks take seconds, not minutes; the code path is the defaults'.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExhaustionTest {

    static final int PER_IP = 64;
    static final int ADDRESSES = 20;
    static final int TOTAL = 2600;
    static final long IDLE_MILLIS = 2_000;
    static final long DEADLINE_MILLIS = 1_000;
    static final int PEER_RATE = 2_000;
    static final MessageCodec CODEC = new MessageCodec();

    @TempDir
    static Path dir;
    static RattanNode node;

    @BeforeAll
    static void start() throws IOException {
        Limits limits = Limits.defaults()
                .withClientRequestsPerSecond(Limits.OFF)
                .withPeerRequestsPerSecond(PEER_RATE)
                // The fake senders never complete a handshake: their frames meet the per-IP rate for strangers.
                .withPeerIpRequestsPerSecond(PEER_RATE)
                .withConnections(TOTAL, PER_IP)
                .withTimeouts(IDLE_MILLIS, DEADLINE_MILLIS);
        node = RattanNode.start(NodeOptions.singleNode(dir.resolve("node")).withLimits(limits));
        // Warm the paths the attacks take, so that the heap measured before an attack holds what serving needs.
        try (RawHttp warm = new RawHttp("127.0.0.249", node.httpAddress())) {
            for (int i = 0; i < 50; i++) {
                warm.get("/v1/keys/name:warm");
            }
        }
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    @Order(1)
    void thousandsOfIdleSocketsAreBoundedAndReapedWhileHonestClientsAndTheCanaryAreServed() throws Exception {
        long heapBefore = heapAfterGc();
        try (Canary canary = Canary.start("127.0.0.250", node.httpAddress())) {
            List<Socket> idle = new ArrayList<>();
            try {
                // 20 addresses x 70 sockets on each port: 64 per address accepted, the rest refused.
                int refusedBefore = (int) refusals(Refusal.CONNECTIONS_PER_IP);
                for (Port port : Port.values()) {
                    for (int a = 0; a < ADDRESSES; a++) {
                        for (int i = 0; i < 70; i++) {
                            idle.add(connect("127.0.1." + (a + 1), address(port)));
                        }
                    }
                }
                System.out.printf("%d idle sockets opened%n", idle.size());
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(refusals(Refusal.CONNECTIONS_PER_IP) - refusedBefore).isEqualTo(3 * ADDRESSES * 6));
                for (Port port : Port.values()) {
                    assertThat(node.connectionCount(port)).isLessThanOrEqualTo(ADDRESSES * PER_IP + 2);
                }
                // 100 honest connections from other addresses, while the idle ones are held: all served.
                int served = 0;
                for (int i = 0; i < 100; i++) {
                    try (RawHttp honest = new RawHttp("127.0.2." + (i + 1), node.httpAddress())) {
                        served += honest.get("/health").status() == 200 ? 1 : 0;
                    }
                }
                assertThat(served).isEqualTo(100);
                // The idle timeout reaps them all.
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    for (Port port : Port.values()) {
                        assertThat(node.connectionCount(port)).isLessThanOrEqualTo(2);
                    }
                });
                assertThat(node.refusals(Port.PEER, Refusal.IDLE)).isGreaterThanOrEqualTo((long) ADDRESSES * PER_IP);
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
                // Closed sockets still take megabytes; the heap bound is the node's, not this list's.
                idle.clear();
            }
            canary.assertHealthy();
        }
        assertHeapWithinTenPercentOf(heapBefore);
    }

    @Test
    @Order(2)
    void slowlorisAtOneByteAnIntervalIsClosedAtTheFrameDeadlineOnEveryPort() throws Exception {
        long peer = node.refusals(Port.PEER, Refusal.FRAME_DEADLINE);
        long gateway = node.refusals(Port.GATEWAY, Refusal.FRAME_DEADLINE);
        long http = node.refusals(Port.HTTP, Refusal.FRAME_DEADLINE);
        try (RawFrames peerConn = new RawFrames("127.0.3.1", address(Port.PEER));
             RawFrames gatewayConn = new RawFrames("127.0.3.2", address(Port.GATEWAY));
             RawHttp httpConn = new RawHttp("127.0.3.3", node.httpAddress())) {
            // A frame announced as 100 bytes, and an HTTP request line, then one byte every 200 ms: each byte
            // comes well within the idle timeout, so only the frame deadline can close them.
            peerConn.raw(new byte[] {0, 0, 0, 100});
            gatewayConn.raw(new byte[] {0, 0, 0, 100});
            httpConn.raw("GET /health HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            boolean allClosed = false;
            while (!allClosed && System.nanoTime() - start < Duration.ofSeconds(20).toNanos()) {
                Thread.sleep(200);
                quietly(() -> peerConn.raw(new byte[] {1}));
                quietly(() -> gatewayConn.raw(new byte[] {1}));
                quietly(() -> httpConn.raw(new byte[] {'X'}));
                allClosed = node.refusals(Port.PEER, Refusal.FRAME_DEADLINE) > peer
                        && node.refusals(Port.GATEWAY, Refusal.FRAME_DEADLINE) > gateway
                        && node.refusals(Port.HTTP, Refusal.FRAME_DEADLINE) > http;
            }
            assertThat(allClosed).as("every slowloris connection closed at its frame deadline").isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> peerConn.closedByServer()
                    && gatewayConn.closedByServer() && httpConn.closedByServer());
        }
    }

    @Test
    @Order(3)
    void aNonReadingPipelinerOnAKeyWith256ValuesStopsBeingReadAndTheCanaryIsServed() throws Exception {
        String key = "/v1/keys/name:pipelined";
        List<CompletableFuture<Message>> puts = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            byte[] value = new byte[1024];
            value[0] = (byte) i;
            value[1] = (byte) (i >> 8);
            puts.add(node.request(new ClientPut(Id.ofName("pipelined"), Bytes.wrap(value), 600, Bytes.EMPTY)));
        }
        for (CompletableFuture<Message> put : puts) {
            assertThat(put.get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(PutReply.class,
                    p -> assertThat(p.status()).isEqualTo(Status.OK));
        }
        try (RawHttp getter = new RawHttp("127.0.4.1", node.httpAddress())) {
            RawHttp.Response page = getter.get(key);
            assertThat(page.text()).contains("\"placemark\":null");
            assertThat(page.body().length).isGreaterThan(256 * 1024);
        }
        long heapBefore = heapAfterGc();
        try (Canary canary = Canary.start("127.0.4.250", node.httpAddress());
             RawHttp pipeliner = new RawHttp("127.0.4.2", node.httpAddress())) {
            pipeliner.socket().setReceiveBufferSize(4096);
            // 200 gets of ~450 KB answers each (90 MB in all) written and never read.
            Thread writer = new Thread(() -> {
                for (int i = 0; i < 200; i++) {
                    quietly(() -> pipeliner.write("GET", key, new byte[0], Map.of()));
                }
            });
            writer.setDaemon(true);
            writer.start();
            // The gateway stops reading once its write buffer passes the high-water mark: the backlog it holds stays
            // at about one answer beyond the mark, however long we wait.
            long bound = HttpGateway.WRITE_BUFFER_HIGH_BYTES + 1024 * 1024;
            for (int i = 0; i < 20; i++) {
                Thread.sleep(100);
                assertThat(node.httpPendingWriteBytesMax()).isLessThanOrEqualTo(bound);
            }
            System.out.printf("pipeliner: %d bytes pending at the gateway (bound %d)%n",
                    node.httpPendingWriteBytesMax(), bound);
            canary.assertHealthy();
        }
        assertHeapWithinTenPercentOf(heapBefore);
    }

    @Test
    @Order(4) // last: the fake ids it leaves in the node's tables would be probed during the others
    void fakeSenderIdsAtAHighRateAreRateLimitedAndLeaveTheNodeBounded() throws Exception {
        long heapBefore = heapAfterGc();
        long dropped = node.refusals(Port.PEER, Refusal.RATE);
        long refused = node.peerFramesRefused();
        long received = node.peerFramesReceived();
        int leafSetBefore = node.status().leafSet().size();
        SplittableRandom random = new SplittableRandom(18);
        int frames = 20_000;
        try (Canary canary = Canary.start("127.0.5.250", node.httpAddress());
             RawFrames attacker = new RawFrames("127.0.5.1", address(Port.PEER))) {
            // Each claims a new id at an address nobody listens on, on a connection that never did the handshake:
            // the rate gate drops what is over the rate, the handshake rules refuse the rest. All in one write, built
            // in a method of its own so that no local of this frame keeps its megabytes alive for the heap check.
            attacker.raw(fakeSenderFrames(random, frames));
            await().atMost(Duration.ofSeconds(120)).until(() -> node.refusals(Port.PEER, Refusal.RATE) - dropped
                    + node.peerFramesRefused() - refused >= frames);
            System.out.printf("fake senders: %d of %d frames dropped over the rate, %d refused as unverified%n",
                    node.refusals(Port.PEER, Refusal.RATE) - dropped, frames, node.peerFramesRefused() - refused);
            assertThat(node.peerFramesReceived() - received).as("fake frames that reached the node").isZero();
            assertThat(node.refusals(Port.PEER, Refusal.RATE) - dropped).as("frames over the peer rate").isPositive();
            canary.assertHealthy();
        }
        var status = node.status();
        assertThat(status.leafSet()).as("no fake id learned").hasSize(leafSetBefore);
        assertThat(node.peersRateTracked()).isLessThanOrEqualTo(KeyedRateLimiter.KEYS_MAX);
        assertHeapWithinTenPercentOf(heapBefore);
    }

    // ---- helpers

    private static byte[] fakeSenderFrames(SplittableRandom random, int frames) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < frames; i++) {
            byte[] id = new byte[Id.BYTES];
            random.nextBytes(id);
            Contact fake = new Contact(Id.fromBytes(id), new Address("127.0.5.1", 1 + random.nextInt(65_000)));
            byte[] body = CODEC.encode(new Envelope(fake, random.nextLong(), new StoreAck(0)));
            all.write(ByteBuffer.allocate(4).putInt(body.length).array());
            all.write(body);
        }
        return all.toByteArray();
    }

    private static long refusals(Refusal refusal) {
        long sum = 0;
        for (Port port : Port.values()) {
            sum += node.refusals(port, refusal);
        }
        return sum;
    }

    private static InetSocketAddress address(Port port) {
        switch (port) {
            case PEER:
                return new InetSocketAddress("127.0.0.1", node.contact().address().port());
            case GATEWAY:
                return node.gatewayAddress();
            default:
                return node.httpAddress();
        }
    }

    private static Socket connect(String localIp, InetSocketAddress server) throws IOException {
        Socket s = new Socket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(localIp), 0));
        s.connect(server, 5_000);
        return s;
    }

    private static long heapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void assertHeapWithinTenPercentOf(long before) {
        // A full GC may need a few rounds to return what the attack's garbage held; the bound is what must hold.
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            long after = heapAfterGc();
            System.out.printf("heap after GC: %d bytes before, %d after%n", before, after);
            assertThat(after).isLessThanOrEqualTo(before + before / 10);
        });
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static void quietly(IoAction action) {
        try {
            action.run();
        } catch (IOException e) {
            // The server closed the connection: what the test waits for.
        }
    }

    /** A get every 100 ms from its own address, for as long as an attack lasts; every one must succeed. */
    static final class Canary implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger ok = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final Thread thread;

        private Canary(String ip, InetSocketAddress http) {
            thread = new Thread(() -> {
                while (running.get()) {
                    // A new connection each time, so that each get also proves a connection is accepted.
                    try (RawHttp c = new RawHttp(ip, http)) {
                        (c.get("/v1/keys/name:canary").status() == 200 ? ok : failed).incrementAndGet();
                    } catch (IOException e) {
                        failed.incrementAndGet();
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "canary");
            thread.setDaemon(true);
        }

        static Canary start(String ip, InetSocketAddress http) {
            Canary c = new Canary(ip, http);
            c.thread.start();
            return c;
        }

        void assertHealthy() {
            await().atMost(Duration.ofSeconds(10)).until(() -> ok.get() > 0);
            assertThat(failed.get()).as("canary gets that failed (%d succeeded)", ok.get()).isZero();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.interrupt();
            thread.join(5_000);
        }
    }
}
