package io.rattan.node.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.rattan.node.netty.EventLoops;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which failed connects {@link ConnectRefusal} takes for "nothing listens there": a refusal on real sockets only. */
class ConnectRefusalTest {

    /** A loopback port that nothing listens on: bound once, then closed. */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aConnectToAClosedPortIsARefusalThroughTheNodesTransportAndTheJdks() throws Exception {
        int port = closedPort();
        EventLoopGroup group = EventLoops.newGroup(1, "refusal-test");
        try {
            ChannelFuture f = new Bootstrap().group(group).channel(EventLoops.socketChannelClass(group))
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertThat(f.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(f.isSuccess()).isFalse();
            assertThat(ConnectRefusal.is(f.cause())).as(f.cause().toString()).isTrue();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            throw new AssertionError("connected to a closed port");
        } catch (ConnectException refused) {
            assertThat(ConnectRefusal.is(refused)).as(refused.toString()).isTrue();
        }
    }

    @Test
    void aTimeoutOrThisHostsOwnFailureIsNoRefusal() {
        assertThat(ConnectRefusal.is(new ConnectTimeoutException("connection timed out: /10.0.0.1:4000"))).isFalse();
        assertThat(ConnectRefusal.is(new ConnectException("connect(..) failed: Cannot assign requested address")))
                .isFalse();
        assertThat(ConnectRefusal.is(new ConnectException())).isFalse();
        assertThat(ConnectRefusal.is(new IOException("Connection refused"))).as("not a connect failure").isFalse();
    }
}
