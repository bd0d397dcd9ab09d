package io.rattan.node.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The transport tests again on NIO, where a loopback connect completes only on a later loop turn, so frames sent
 * meanwhile take the queue-while-connecting path (epoll usually connects at once).
 */
class NettyTransportNioTest extends NettyTransportTest {

    @Override
    EventLoopGroup newGroup(String name) {
        return new NioEventLoopGroup(1, new DefaultThreadFactory(name, true));
    }
}
