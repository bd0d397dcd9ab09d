package io.rattan.node.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * The first handler of a server connection, next to the socket: counts the raw bytes read and written (length
 * prefixes and malformed input included), then passes them on untouched. Sharable: it holds only its listener.
 */
@ChannelHandler.Sharable
final class ByteCountingHandler extends ChannelDuplexHandler {

    private final TransportListener listener;

    /** @param listener receives {@code bytesReceived} and {@code bytesSent}, on the connection's loop */
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

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            listener.bytesSent(buf.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
