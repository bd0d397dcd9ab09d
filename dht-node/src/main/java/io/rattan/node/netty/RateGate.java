package io.rattan.node.netty;

import com.google.common.base.Ticker;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.rattan.node.limits.KeyedRateLimiter;
import io.rattan.node.netty.TransportListener.Refusal;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Drops every decoded message above its sender's rate, counted, with no answer (an answer to an unverified sender
 * is what reflection attacks use). Who the sender is depends on the connection: once its handshake proved a peer,
 * the connection carries that peer's node id ({@link #VERIFIED_PEER}) and its frames count against that id's bucket,
 * whatever address the peer uses; before that, against its source IP's bucket, at the (lower) rate for strangers. A
 * peer's id is proven by a handshake per connection, and connections are bounded per IP and in total, so neither
 * map grows beyond what {@link KeyedRateLimiter} bounds anyway. Sharable: the limiters are keyed, not per connection.
 */
@ChannelHandler.Sharable
public final class RateGate extends ChannelInboundHandlerAdapter {

    /**
     * The proven sender of a connection, set by the protocol's handshake once it completes (the peer port sets the
     * node id). Until it is set the connection counts as its source IP's.
     */
    public static final AttributeKey<Object> VERIFIED_PEER = AttributeKey.valueOf("rattan.verifiedPeer");

    private final KeyedRateLimiter<Object> perPeer;
    private final KeyedRateLimiter<Object> perIp;
    private final TransportListener listener;

    /**
     * @param perPeerPerSecond messages per second per verified peer, or {@code Limits.OFF}
     * @param perIpPerSecond   messages per second per source IP on connections not yet verified, or
     *                         {@code Limits.OFF}
     * @param listener         counts the drops
     */
    public RateGate(int perPeerPerSecond, int perIpPerSecond, TransportListener listener) {
        this(perPeerPerSecond, perIpPerSecond, listener, Ticker.systemTicker());
    }

    /** As above, on {@code ticker}'s time (tests). */
    RateGate(int perPeerPerSecond, int perIpPerSecond, TransportListener listener, Ticker ticker) {
        this.perPeer = new KeyedRateLimiter<>(perPeerPerSecond, ticker);
        this.perIp = new KeyedRateLimiter<>(perIpPerSecond, ticker);
        this.listener = listener;
    }

    /** Marks {@code channel} as proven to be {@code peer}'s: its later frames count against {@code peer}'s rate. */
    public static void verified(Channel channel, Object peer) {
        channel.attr(VERIFIED_PEER).set(peer);
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
        Object peer = ctx.channel().attr(VERIFIED_PEER).get();
        boolean admitted = peer != null ? perPeer.tryAcquire(peer) : perIp.tryAcquire(byIp(ctx));
        if (admitted) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        listener.refused(Refusal.RATE);
    }

    /** Senders tracked now, verified peers and source IPs together (each map bounded). */
    public long sendersTracked() {
        return perPeer.size() + perIp.size();
    }

    /** Verified peers tracked now (bounded). */
    public long peersTracked() {
        return perPeer.size();
    }

    /** Source IPs of unverified connections tracked now (bounded). */
    public long ipsTracked() {
        return perIp.size();
    }
}
