package io.rattan.node.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.PeerTls;
import java.nio.channels.ClosedChannelException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an outbound peer channel is dialed and what runs in its pipeline: the socket options and bounds
 * ({@link NettyTransport#CONNECT_TIMEOUT_MILLIS}, the write-buffer water marks), a guard before the socket that counts
 * bytes and enforces the halt, and a reader that takes the listener's {@code Welcome} and nothing else.
 *
 * <p>It exists apart from {@link OutboundConnections} because it is Netty plumbing, the same for every channel, while
 * the table holds each peer's state; the two meet only through the {@link #CONNECTION} attribute a channel carries.
 * Handlers run on the node's loop, where every outbound channel is registered.
 */
final class OutboundPipeline extends ChannelInitializer<Channel> {

    /** The table's entry for the peer a channel was dialed to, set as the channel is created. */
    static final AttributeKey<OutboundConnections.Connection> CONNECTION = AttributeKey.valueOf("rattan.connection");
    // The only frame a listener sends back: a Welcome, 11 bytes.
    private static final int INBOUND_FRAME_BYTES_MAX = 64;

    // Logged under the transport's name, as before the split, so log configuration keeps applying.
    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);

    private final OutboundConnections table;
    private final MessageCodec codec;
    private final TransportListener listener;
    private final String localName;
    private final ChannelHandler guard = new OutboundGuard();
    private final Supplier<PeerTls> tls;

    private OutboundPipeline(OutboundConnections table, MessageCodec codec, TransportListener listener,
                             String localName, Supplier<PeerTls> tls) {
        this.table = table;
        this.tls = tls;
        this.codec = codec;
        this.listener = listener;
        this.localName = localName;
    }

    /**
     * The bootstrap that dials every outbound connection of {@code table}, registered on {@code loop}, with TLS when
     * {@code tls} gives one as the connection is made.
     */
    static Bootstrap bootstrap(EventLoop loop, OutboundConnections table, MessageCodec codec,
                               TransportListener listener, String localName, Supplier<PeerTls> tls) {
        Bootstrap b = new Bootstrap();
        if (EventLoops.isEpoll(loop)) {
            // A connection bound to a source address takes its port at connect, as an unbound one does, so that
            // ports are shared across destinations (IP_BIND_ADDRESS_NO_PORT).
            b.option(EpollChannelOption.IP_BIND_ADDRESS_NO_PORT, true);
        }
        return b
                .group(loop)
                .channel(EventLoops.socketChannelClass(loop))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, NettyTransport.CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                        NettyTransport.WRITE_BUFFER_LOW_BYTES, NettyTransport.WRITE_BUFFER_HIGH_BYTES))
                .handler(new OutboundPipeline(table, codec, listener, localName, tls));
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast("guard", guard);
        PeerTls peerTls = tls.get();
        if (peerTls != null) {
            // After the guard: it counts and halts what reaches the socket, the encrypted bytes.
            ch.pipeline().addLast("tls", peerTls.clientHandler(ch));
        }
        ch.pipeline()
                .addLast("framing", new LengthFieldBasedFrameDecoder(INBOUND_FRAME_BYTES_MAX + 4, 0, 4, 0, 4))
                .addLast("welcome", new WelcomeHandler());
    }

    private void failed(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{}: outbound connection {} failed: {}", localName, ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /**
     * The last handler before the socket on every outbound channel: counts bytes, enforces the halt (no write or
     * flush passes once it began), and discards whatever a peer sends back.
     */
    @ChannelHandler.Sharable
    private final class OutboundGuard extends ChannelDuplexHandler {

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (table.halted()) {
                table.sentAfterHalt();
                ReferenceCountUtil.release(msg);
                promise.tryFailure(new ClosedChannelException());
                return;
            }
            if (msg instanceof ByteBuf buf && buf.isReadable()) {
                listener.bytesSent(buf.readableBytes());
            }
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // Nothing buffered reaches the socket once the halt began; closing the channel discards it.
            if (!table.halted()) {
                ctx.flush();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failed(ctx, cause);
        }
    }

    /** Reads what a listener sends back on an outbound connection: its {@code Welcome}, and nothing else. */
    private final class WelcomeHandler extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                OutboundConnections.Connection c = ctx.channel().attr(CONNECTION).get();
                byte[] frame = ByteBufUtil.getBytes((ByteBuf) msg);
                Envelope e = codec.decode(frame);
                if (c != null && e.body().type() == MessageType.WELCOME) {
                    // Its request id names the newest version the listener speaks (0 from a node of 11).
                    c.welcomed(PeerVersions.newestOf(e.requestId(), frame[0] & 0xFF));
                } else {
                    log.debug("{}: {} sent a {} on our connection; closing it", localName,
                            ctx.channel().remoteAddress(), e.body().type());
                    ctx.close();
                }
            } catch (RuntimeException e) {
                log.debug("{}: undecodable frame from {}: {}", localName, ctx.channel().remoteAddress(), e.toString());
                ctx.close();
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failed(ctx, cause);
        }
    }
}
