package io.rattan.node.gateway.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.TransportListener;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's pipeline: TLS where it is on → the request deadline → idle reaping → HTTP codec → bounded aggregation → the thin
 * handler.
 */
@ChannelHandler.Sharable
final class HttpGatewayInitializer extends ChannelInitializer<SocketChannel> {

    private final ApiRouter router;
    private final int maxContentBytes;
    private final int valueBytesMax;
    private final long answerTimeoutMillis;
    private final ClientGuard guard;
    private final ConnectionLimits limits;
    private final TransportListener listener;
    private final HttpAccess access;

    HttpGatewayInitializer(ApiRouter router, int maxContentBytes, int valueBytesMax, long answerTimeoutMillis,
                           ClientGuard guard, ConnectionLimits limits, TransportListener listener, HttpAccess access) {
        this.router = router;
        this.maxContentBytes = maxContentBytes;
        this.valueBytesMax = valueBytesMax;
        this.answerTimeoutMillis = answerTimeoutMillis;
        this.guard = guard;
        this.limits = limits;
        this.listener = listener;
        this.access = access;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (access.tls() != null) {
            ch.pipeline().addLast("tls", access.tls().handler(ch));
        }
        ch.pipeline()
                .addLast("deadline", new RequestDeadline(limits.frameDeadlineMillis(), listener))
                .addLast("idle", new IdleStateHandler(0, 0, limits.idleMillis(), TimeUnit.MILLISECONDS))
                .addLast("codec", new HttpServerCodec())
                .addLast("aggregator", new BoundedAggregator(maxContentBytes, valueBytesMax))
                .addLast("handler", new HttpGatewayHandler(router, answerTimeoutMillis, guard, listener,
                        access.tokens()));
    }
}
