package io.rattan.node.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Status;
import io.rattan.node.http.GatewayBackend;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of the binary gateway: each frame is a request, served by the backend; replies go back in
 * completion order, each carrying its request's id, so a client may keep many requests in flight. One instance per
 * connection; all its state is confined to the connection's loop.
 */
final class ClientGatewayHandler extends EnvelopeInboundHandler {

    private static final Logger log = LoggerFactory.getLogger(ClientGatewayHandler.class);
    private static final int DETAIL_CHARS_MAX = 200;

    private final GatewayBackend backend;
    private final int inFlightMax;
    private int inFlight;
    private boolean flushPending;

    ClientGatewayHandler(MessageCodec codec, GatewayBackend backend, int inFlightMax, TransportListener listener) {
        super(codec, listener, "client connection");
        this.backend = backend;
        this.inFlightMax = inFlightMax;
    }

    @Override
    void onEnvelope(ChannelHandlerContext ctx, Envelope request) {
        long requestId = request.requestId();
        Message body = request.body();
        if (inFlight >= inFlightMax) {
            reply(ctx, requestId, new ErrorReply(Status.UNAVAILABLE, "too many requests in flight"));
            return;
        }
        inFlight++;
        CompletableFuture<Message> served;
        try {
            served = backend.request(body);
        } catch (RuntimeException e) {
            served = CompletableFuture.failedFuture(e);
        }
        served.whenComplete((reply, failure) -> {
            EventExecutor executor = ctx.executor();
            if (executor.inEventLoop()) {
                done(ctx, requestId, reply, failure);
            } else {
                try {
                    executor.execute(() -> done(ctx, requestId, reply, failure));
                } catch (RejectedExecutionException e) {
                    // The connection's loop is shutting down; the connection dies with it.
                    log.debug("gateway loop gone; dropped the reply to request {}", requestId);
                }
            }
        });
    }

    private void done(ChannelHandlerContext ctx, long requestId, Message reply, Throwable failure) {
        inFlight--;
        if (failure != null || reply == null) {
            log.warn("gateway backend failed on request {}", requestId, failure);
            reply = new ErrorReply(Status.INTERNAL, failure == null ? "no reply" : truncate(failure.toString()));
        }
        reply(ctx, requestId, reply);
    }

    private void reply(ChannelHandlerContext ctx, long requestId, Message reply) {
        if (!ctx.channel().isActive()) {
            return;
        }
        ByteBuf frame;
        try {
            frame = Frames.encode(ctx.alloc(), codec, new Envelope(null, requestId, reply));
        } catch (RuntimeException e) {
            log.warn("cannot encode the reply to request {}: {}", requestId, e.toString());
            frame = Frames.encode(ctx.alloc(), codec, new Envelope(null, requestId,
                    new ErrorReply(Status.INTERNAL, "reply could not be encoded")));
        }
        listener.bytesSent(frame.readableBytes());
        ctx.write(frame, ctx.voidPromise());
        // Replies finished in the same loop task share one flush.
        if (!flushPending) {
            flushPending = true;
            try {
                ctx.executor().execute(() -> {
                    flushPending = false;
                    ctx.flush();
                });
            } catch (RejectedExecutionException e) {
                flushPending = false;
                ctx.flush();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // A client that does not read its replies stops being read from, so its requests cannot pile up replies.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    private static String truncate(String s) {
        return s.length() <= DETAIL_CHARS_MAX ? s : s.substring(0, DETAIL_CHARS_MAX);
    }
}
