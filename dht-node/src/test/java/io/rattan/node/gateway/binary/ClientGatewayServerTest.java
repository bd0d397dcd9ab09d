package io.rattan.node.gateway.binary;

import static io.rattan.node.netty.TestMessages.CODEC;
import static io.rattan.node.netty.TestMessages.closedByPeer;
import static io.rattan.node.netty.TestMessages.readFrame;
import static io.rattan.node.netty.TestMessages.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.netty.TransportListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binary client gateway over loopback, with a backend the test answers by hand. */
class ClientGatewayServerTest {

    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private final EventLoopGroup group = EventLoops.newGroup(1, "gateway-test");
    private final RecordingGatewayBackend backend = new RecordingGatewayBackend();
    private ClientGatewayServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void answersMultiplexedRequestsInCompletionOrder() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        Id key = Id.ofName("k");
        Message get = ClientGet.of(key).page(10, Bytes.EMPTY);
        Message put = new ClientPut(key, Bytes.utf8("v"), 60, Bytes.EMPTY);
        Message remove = new ClientRemove(key, Bytes.utf8("v").sha256(), Bytes.utf8("secret"), 60);
        try (Socket client = connect()) {
            writeFrame(client, new Envelope(null, 11, get));
            writeFrame(client, new Envelope(null, 12, put));
            writeFrame(client, new Envelope(null, 13, remove));
            RecordingGatewayBackend.Call first = backend.next();
            RecordingGatewayBackend.Call second = backend.next();
            RecordingGatewayBackend.Call third = backend.next();
            assertThat(List.of(first.request(), second.request(), third.request())).containsExactly(get, put, remove);

            Message removed = new RemoveReply(Status.OK, "");
            Message got = new GetReply(Status.OK, List.of(), Bytes.EMPTY, 2, "");
            Message stored = new PutReply(Status.OK, 4, "");
            third.reply().complete(removed);
            assertThat(readFrame(client)).isEqualTo(new Envelope(null, 13, removed));
            first.reply().complete(got);
            assertThat(readFrame(client)).isEqualTo(new Envelope(null, 11, got));
            second.reply().complete(stored);
            assertThat(readFrame(client)).isEqualTo(new Envelope(null, 12, stored));
        }
    }

    @Test
    void repliesCompletedTogetherAllArrive() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        int n = 200;
        try (Socket client = connect()) {
            for (int i = 0; i < n; i++) {
                writeFrame(client, new Envelope(null, i, ClientGet.of(Id.ofName("k" + i)).page(1, Bytes.EMPTY)));
            }
            RecordingGatewayBackend.Call[] calls = new RecordingGatewayBackend.Call[n];
            for (int i = 0; i < n; i++) {
                calls[i] = backend.next();
            }
            for (int i = n - 1; i >= 0; i--) {
                calls[i].reply().complete(new GetReply(Status.NOT_FOUND, List.of(), Bytes.EMPTY, i % 5, ""));
            }
            for (int i = n - 1; i >= 0; i--) {
                Envelope reply = readFrame(client);
                assertThat(reply.requestId()).isEqualTo(i);
                assertThat(((GetReply) reply.body()).hops()).isEqualTo(i % 5);
            }
        }
    }

    @Test
    void aPeerMessageIsABadRequestAndTheConnectionStaysOpen() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        try (Socket client = connect()) {
            writeFrame(client, new Envelope(TestMessages.SENDER, 7, new Ping()));
            Envelope reply = readFrame(client);
            assertThat(reply.requestId()).isEqualTo(7);
            assertThat(reply.sender()).isNull();
            assertThat(((ErrorReply) reply.body()).status()).isEqualTo(Status.BAD_REQUEST);

            Message get = ClientGet.of(Id.ofName("after")).page(1, Bytes.EMPTY);
            writeFrame(client, new Envelope(null, 8, get));
            RecordingGatewayBackend.Call call = backend.next();
            assertThat(call.request()).isEqualTo(get);
            call.reply().complete(new GetReply(Status.OK, List.of(), Bytes.EMPTY, 0, ""));
            assertThat(readFrame(client).requestId()).isEqualTo(8);
        }
        assertThat(server.framesRejected()).isZero();
    }

    @Test
    void refusesRequestsBeyondTheInFlightBound() throws Exception {
        start(2);
        try (Socket client = connect()) {
            for (int i = 1; i <= 3; i++) {
                writeFrame(client, new Envelope(null, i, ClientGet.of(Id.ofName("k" + i)).page(1, Bytes.EMPTY)));
            }
            Envelope refused = readFrame(client);
            assertThat(refused.requestId()).isEqualTo(3);
            assertThat(refused.body()).isEqualTo(new ErrorReply(Status.UNAVAILABLE, "too many requests in flight"));
            RecordingGatewayBackend.Call first = backend.next();
            backend.next();
            assertThat(backend.calls).isEmpty();

            // Once one completes there is room again.
            first.reply().complete(new GetReply(Status.OK, List.of(), Bytes.EMPTY, 0, ""));
            assertThat(readFrame(client).requestId()).isEqualTo(1);
            writeFrame(client, new Envelope(null, 4, ClientGet.of(Id.ofName("k4")).page(1, Bytes.EMPTY)));
            assertThat(backend.next().request()).isEqualTo(ClientGet.of(Id.ofName("k4")).page(1, Bytes.EMPTY));
        }
    }

    @Test
    void aFailedBackendFutureBecomesAnInternalError() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        try (Socket client = connect()) {
            writeFrame(client, new Envelope(null, 5, ClientGet.of(Id.ofName("k")).page(1, Bytes.EMPTY)));
            backend.next().reply().completeExceptionally(new IllegalStateException("expected by the test"));
            Envelope reply = readFrame(client);
            assertThat(reply.requestId()).isEqualTo(5);
            assertThat(((ErrorReply) reply.body()).status()).isEqualTo(Status.INTERNAL);
        }
    }

    @Test
    void garbageClosesTheConnectionAndOthersAreStillServed() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        try (Socket bad = connect()) {
            TestMessages.writeRaw(bad, new byte[] {1, 2, 3, 4, 5});
            assertThat(closedByPeer(bad)).isTrue();
        }
        assertThat(server.framesRejected()).isEqualTo(1);
        assertThat(backend.calls).isEmpty();

        try (Socket good = connect()) {
            writeFrame(good, new Envelope(null, 1, ClientGet.of(Id.ofName("k")).page(1, Bytes.EMPTY)));
            backend.next().reply().complete(new GetReply(Status.OK, List.of(), Bytes.EMPTY, 0, ""));
            assertThat(readFrame(good).requestId()).isEqualTo(1);
        }
    }

    @Test
    void oversizeLengthClosesTheConnection() throws Exception {
        start(ClientGatewayServer.IN_FLIGHT_MAX);
        try (Socket bad = connect()) {
            new java.io.DataOutputStream(bad.getOutputStream()).writeInt(CODEC.frameBytesMax() + 1);
            assertThat(closedByPeer(bad)).isTrue();
        }
        assertThat(server.framesRejected()).isEqualTo(1);
    }

    private void start(int inFlightMax) throws IOException {
        server = new ClientGatewayServer(group, new InetSocketAddress("127.0.0.1", 0), backend, CODEC, inFlightMax,
                TransportListener.NONE);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.localAddress().getPort());
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return socket;
    }
}
