package io.rattan.node.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventLoopsTest {

    @Test
    void channelClassesMatchTheGroupAndItsLoops() {
        EventLoopGroup group = EventLoops.newGroup(1, "event-loops-test");
        EventLoopGroup nio = new NioEventLoopGroup(1);
        try {
            boolean epoll = EventLoops.useEpoll();
            assertThat(EventLoops.serverChannelClass(group))
                    .isEqualTo(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
            assertThat(EventLoops.socketChannelClass(group.next()))
                    .isEqualTo(epoll ? EpollSocketChannel.class : NioSocketChannel.class);
            assertThat(EventLoops.serverChannelClass(nio.next())).isEqualTo(NioServerSocketChannel.class);
            assertThat(EventLoops.socketChannelClass(nio)).isEqualTo(NioSocketChannel.class);
            if (System.getProperty(EventLoops.TRANSPORT_PROPERTY) == null) {
                assertThat(epoll).isEqualTo(Epoll.isAvailable());
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void knowsWhetherTheCallerIsOnALoop() throws Exception {
        EventLoopGroup group = EventLoops.newGroup(1, "in-loop-test");
        try {
            assertThat(EventLoops.inAnyLoop(group)).isFalse();
            assertThat(group.next().submit(() -> EventLoops.inAnyLoop(group)).get()).isTrue();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
