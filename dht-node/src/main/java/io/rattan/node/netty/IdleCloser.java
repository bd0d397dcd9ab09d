package io.rattan.node.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.rattan.node.netty.TransportListener.Refusal;

/**
 * Closes a connection when the {@code IdleStateHandler} before it reports it idle, and counts it, unless the
 * connection is marked {@link EnvelopeInitializer#KEEP_WHILE_IDLE}. Sharable.
 */
@ChannelHandler.Sharable
final class IdleCloser extends ChannelInboundHandlerAdapter {

    private final TransportListener listener;

    IdleCloser(TransportListener listener) {
        this.listener = listener;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && Boolean.TRUE.equals(ctx.channel().attr(
                EnvelopeInitializer.KEEP_WHILE_IDLE).get())) {
            return;
        }
        if (evt instanceof IdleStateEvent) {
            listener.refused(Refusal.IDLE);
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
