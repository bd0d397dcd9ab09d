package io.rattan.node.gateway.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.node.netty.TransportListener.Refusal;
import io.rattan.node.netty.TransportListener;
import java.util.concurrent.TimeUnit;

/**
 * The first handler of an HTTP connection: a request must be whole {@code deadlineMillis} after the first byte read
 * since the previous request completed, however its bytes trickle in. Later bytes do not restart the timer, so a
 * client sending a header byte a minute (slowloris) is closed at the deadline, where an idle timer would be reset by
 * every byte. The handler that receives whole requests calls {@link #requestComplete}. One per connection; confined
 * to its loop.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {

    private final long deadlineMillis;
    private final TransportListener listener;
    private ScheduledFuture<?> timer;

    RequestDeadline(long deadlineMillis, TransportListener listener) {
        this.deadlineMillis = deadlineMillis;
        this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (timer == null) {
            timer = ctx.executor().schedule(() -> expire(ctx), deadlineMillis, TimeUnit.MILLISECONDS);
        }
        super.channelRead(ctx, msg);
    }

    /** A whole request arrived: the next one's timer starts with its first byte. */
    void requestComplete() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        timer = null;
        if (ctx.channel().isActive()) {
            listener.refused(Refusal.FRAME_DEADLINE);
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        requestComplete();
        super.channelInactive(ctx);
    }
}
