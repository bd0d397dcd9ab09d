package io.rattan.node.gateway.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/** The gateway's pipeline: idle reaping → HTTP codec → bounded aggregation → the thin handler. */
@ChannelHandler.Sharable
final class HttpGatewayInitializer extends ChannelInitializer<SocketChannel> {

    /** A connection with no traffic and no request in flight for this long is closed. */
    static final long IDLE_SECONDS = 120;

    private final ApiRouter router;
    private final int maxContentBytes;
    private final int valueBytesMax;
    private final long answerTimeoutMillis;

    HttpGatewayInitializer(ApiRouter router, int maxContentBytes, int valueBytesMax, long answerTimeoutMillis) {
        this.router = router;
        this.maxContentBytes = maxContentBytes;
        this.valueBytesMax = valueBytesMax;
        this.answerTimeoutMillis = answerTimeoutMillis;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS))
                .addLast("codec", new HttpServerCodec())
                .addLast("aggregator", new BoundedAggregator(maxContentBytes, valueBytesMax))
                .addLast("handler", new HttpGatewayHandler(router, answerTimeoutMillis));
    }
}
