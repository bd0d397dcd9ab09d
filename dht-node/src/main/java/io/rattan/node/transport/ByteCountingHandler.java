package io.rattan.node.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** First inbound handler of a server connection: counts the raw bytes read, then passes them on untouched. */
@ChannelHandler.Sharable
final class ByteCountingHandler extends ChannelInboundHandlerAdapter {

    private final TransportListener listener;

    ByteCountingHandler(TransportListener listener) {
        this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            listener.bytesReceived(buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}
