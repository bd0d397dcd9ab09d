package io.rattan.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.rattan.core.msg.Envelope;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a client connection: hands each reply to the attempt waiting for its request id, or to the
 * stream (a watch) registered under it, and closes the connection on any error (a malformed frame above all), which
 * fails every attempt and stream still waiting on it.
 */
final class ClientHandler extends SimpleChannelInboundHandler<Envelope> {

    private static final Logger log = LoggerFactory.getLogger(ClientHandler.class);

    private final ConcurrentMap<Long, Attempt> pending;
    private final ConcurrentMap<Long, StreamSink> streams;
    private final AtomicLong lastReadNanos;

    ClientHandler(ConcurrentMap<Long, Attempt> pending, ConcurrentMap<Long, StreamSink> streams,
                  AtomicLong lastReadNanos) {
        this.pending = pending;
        this.streams = streams;
        this.lastReadNanos = lastReadNanos;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope reply) {
        lastReadNanos.set(System.nanoTime());
        Attempt attempt = pending.remove(reply.requestId());
        if (attempt == null) {
            StreamSink stream = streams.get(reply.requestId());
            if (stream != null) {
                stream.onFrame(reply.body());
                return;
            }
            // Normal for a reply that arrives after its attempt timed out or its call completed.
            log.debug("dropping reply {} for request {}: nobody waits for it", reply.body().type(), reply.requestId());
            return;
        }
        attempt.onReply(reply.body());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("closing connection to {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
