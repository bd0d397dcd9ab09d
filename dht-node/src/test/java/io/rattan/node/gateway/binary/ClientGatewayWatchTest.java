package io.rattan.node.gateway.binary;

import static io.rattan.node.netty.TestMessages.CODEC;
import static io.rattan.node.netty.TestMessages.readFrame;
import static io.rattan.node.netty.TestMessages.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientUnwatch;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.WatchHandle;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binary gateway's watch frames over loopback, with a backend whose watches the test drives by hand. */
class ClientGatewayWatchTest {

    private final EventLoopGroup group = EventLoops.newGroup(1, "gateway-watch-test");
    private final Map<Id, Consumer<WatchEvent>> sinks = new ConcurrentHashMap<>();
    private final AtomicInteger closed = new AtomicInteger();
    private ClientGatewayServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void eventsCarryTheirWatchsRequestIdAndAnUnwatchOrTheBoundEndsOne() throws Exception {
        start(2);
        try (Socket client = connect()) {
            writeFrame(client, new Envelope(null, 21, watch("a")));
            writeFrame(client, new Envelope(null, 22, watch("b")));
            writeFrame(client, new Envelope(null, 23, watch("c")));
            Envelope refused = readFrame(client);
            assertThat(refused.requestId()).isEqualTo(23);
            assertThat(((WatchEvent) refused.body()).kind()).isEqualTo(WatchKind.ENDED);
            assertThat(((WatchEvent) refused.body()).status()).isEqualTo(Status.RATE_LIMITED);
            await().atMost(Duration.ofSeconds(20)).until(() -> sinks.size() == 2);

            sinks.get(Id.ofName("b")).accept(value("for b"));
            sinks.get(Id.ofName("a")).accept(value("for a"));
            Envelope first = readFrame(client);
            Envelope second = readFrame(client);
            assertThat(first.requestId()).isEqualTo(22);
            assertThat(((WatchEvent) first.body()).value().value()).isEqualTo(Bytes.utf8("for b"));
            assertThat(second.requestId()).isEqualTo(21);

            writeFrame(client, new Envelope(null, 24, new ClientUnwatch(21)));
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.get() == 1);
            sinks.get(Id.ofName("a")).accept(value("too late"));
            sinks.get(Id.ofName("b")).accept(value("still b"));
            Envelope third = readFrame(client);
            assertThat(third.requestId()).as("nothing for the unwatched a").isEqualTo(22);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> closed.get() == 2);
    }

    @Test
    void aClientThatDoesNotReadItsEventsIsClosedOnceTheyPassTheBound() throws Exception {
        start(10);
        try (Socket client = connect()) {
            client.setReceiveBufferSize(64 * 1024);
            writeFrame(client, new Envelope(null, 31, watch("flood")));
            await().atMost(Duration.ofSeconds(20)).until(() -> sinks.containsKey(Id.ofName("flood")));
            WatchEvent big = WatchEvent.of(WatchKind.VALUE, 1, 1, Bytes.wrap(new byte[32]),
                    new ValueEntry(Bytes.wrap(new byte[60 * 1024]), 60_000));
            Consumer<WatchEvent> sink = sinks.get(Id.ofName("flood"));
            // Four times the bound, never read: the gateway must close the connection rather than buffer it all.
            long events = 4 * ClientGatewayServer.WATCH_PENDING_BYTES_MAX / (60 * 1024);
            for (int i = 0; i < events && server.connectionCount() > 0; i++) {
                sink.accept(big);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> server.connectionCount() == 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.get() == 1);
        }
    }

    private static Message watch(String name) {
        return new ClientWatch(Id.ofName(name), ValueFilter.NONE, 0, 0);
    }

    private static WatchEvent value(String v) {
        return WatchEvent.of(WatchKind.VALUE, 1, 1, Bytes.utf8(v).sha256(), new ValueEntry(Bytes.utf8(v), 60_000));
    }

    private void start(int watchesMax) throws IOException {
        GatewayBackend backend = new GatewayBackend() {
            @Override
            public CompletableFuture<Message> request(Message clientRequest) {
                return CompletableFuture.failedFuture(new UnsupportedOperationException("not in this test"));
            }

            @Override
            public WatchHandle watch(ClientWatch w, Consumer<WatchEvent> sink) {
                sinks.put(w.key(), sink);
                return closed::incrementAndGet;
            }

            @Override
            public CompletableFuture<NodeStatus> status() {
                return CompletableFuture.failedFuture(new UnsupportedOperationException("not in this test"));
            }

            @Override
            public String scrapeMetrics() {
                return "";
            }

            @Override
            public NodeConfig config() {
                return NodeConfig.defaults();
            }
        };
        server = new ClientGatewayServer(group, new InetSocketAddress("127.0.0.1", 0), backend, CODEC,
                ClientGatewayServer.IN_FLIGHT_MAX, TransportListener.NONE, ClientGuard.none(),
                ConnectionLimits.defaults(), watchesMax, null);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.localAddress().getPort());
        socket.setSoTimeout(20_000);
        return socket;
    }
}
