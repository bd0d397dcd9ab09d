package io.rattan.node.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.node.netty.TransportListener.Refusal;
import java.util.concurrent.TimeUnit;

/**
 * The length-prefixed framing with a deadline: once a frame has begun, it must be whole within
 * {@code deadlineMillis}, however its bytes trickle in. The timer starts at the first byte of a frame and is not
 * reset by later bytes of the same frame (a byte a minute must not hold a connection and its buffer for ever: the
 * slowloris attack); it restarts only when a frame completes and another has begun. One per connection; confined to
 * its loop.
 */
final class DeadlineFrameDecoder extends LengthFieldBasedFrameDecoder {

    private final long deadlineMillis;
    private final TransportListener listener;
    private ScheduledFuture<?> timer;
    private boolean frameDecoded;

    DeadlineFrameDecoder(int maxFrameLength, int lengthBytes, long deadlineMillis, TransportListener listener) {
        super(maxFrameLength, 0, lengthBytes, 0, lengthBytes);
        this.deadlineMillis = deadlineMillis;
        this.listener = listener;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        Object frame = super.decode(ctx, in);
        if (frame != null) {
            frameDecoded = true;
        }
        return frame;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        super.channelRead(ctx, msg);
        if (!ctx.channel().isActive() || ctx.isRemoved()) {
            return;
        }
        if (actualReadableBytes() == 0) {
            cancel();
        } else if (timer == null || frameDecoded) {
            // A new partial frame: the previous one (if any) completed in this read.
            cancel();
            timer = ctx.executor().schedule(() -> expire(ctx), deadlineMillis, TimeUnit.MILLISECONDS);
        }
        frameDecoded = false;
    }

    private void expire(ChannelHandlerContext ctx) {
        timer = null;
        if (ctx.channel().isActive() && !ctx.isRemoved() && actualReadableBytes() > 0) {
            listener.refused(Refusal.FRAME_DEADLINE);
            ctx.close();
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }
}
