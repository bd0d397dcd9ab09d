package io.rattan.node.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.rattan.node.limits.KeyedRateLimiter;
import io.rattan.node.netty.TransportListener.Refusal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Function;

/**
 * Drops every decoded message above its sender's rate, counted, with no answer (an answer to an unverified sender
 * is what reflection attacks use). The sender is what {@code keyOf} makes of the connection: its IP by default; a
 * verified peer's node id once the handshake names it. Sharable: the limiter is keyed, not per connection.
 */
@ChannelHandler.Sharable
public final class RateGate extends ChannelInboundHandlerAdapter {

    private final KeyedRateLimiter<Object> limiter;
    private final Function<ChannelHandlerContext, Object> keyOf;
    private final TransportListener listener;

    /**
     * @param perSecond messages per second per sender, or {@code Limits.OFF}
     * @param keyOf     names the sender of a connection; {@link #byIp} for the source IP
     * @param listener  counts the drops
     */
    public RateGate(int perSecond, Function<ChannelHandlerContext, Object> keyOf, TransportListener listener) {
        this.limiter = new KeyedRateLimiter<>(perSecond);
        this.keyOf = keyOf;
        this.listener = listener;
    }

    /** The source IP of a connection. */
    public static Object byIp(ChannelHandlerContext ctx) {
        return sourceIp(ctx.channel().remoteAddress());
    }

    /** The IP of a socket address, or the address itself when it has none (an in-process channel). */
    public static Object sourceIp(Object remote) {
        if (remote instanceof InetSocketAddress a) {
            InetAddress ip = a.getAddress();
            return ip != null ? ip : a.getHostString();
        }
        return remote;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (limiter.tryAcquire(keyOf.apply(ctx))) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        listener.refused(Refusal.RATE);
    }

    /** Senders tracked now (bounded). */
    public long sendersTracked() {
        return limiter.size();
    }
}
