package io.rattan.node.gateway.binary;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.EncoderException;
import io.netty.util.concurrent.EventExecutor;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.WatchMessages.ClientUnwatch;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.limits.ClientId;
import io.rattan.node.tls.ServerTls;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin end of a binary client connection: each decoded envelope is a request, handed to the backend; each reply
 * goes back as an envelope with its request's id, in completion order, so a client may keep many requests in flight.
 * Decoding, encoding and malformed input are the codec's business. The {@link ClientGuard} refuses requests above the
 * client's rate ({@code RATE_LIMITED}) and puts beyond its storage share ({@code QUOTA_EXCEEDED}), the client being
 * the connection's source IP. A {@code CLIENT_WATCH} starts a stream of {@code WATCH_EVENT}s with its request id
 * instead ({@link ConnectionWatches}). One instance per connection; all its state is confined to the connection's loop.
 */
final class ClientGatewayHandler extends SimpleChannelInboundHandler<Envelope> {

    private static final Logger log = LoggerFactory.getLogger(ClientGatewayHandler.class);
    private static final int DETAIL_CHARS_MAX = 200;

    private final GatewayBackend backend;
    private final ClientGuard guard;
    private final int inFlightMax;
    private final ConnectionWatches watches;
    private ChannelHandlerContext context;
    private ClientId client;
    private int inFlight;
    private boolean flushPending;

    ClientGatewayHandler(GatewayBackend backend, ClientGuard guard, int inFlightMax, int watchesMax,
                         long watchPendingBytesMax) {
        this.backend = backend;
        this.guard = guard;
        this.inFlightMax = inFlightMax;
        this.watches = new ConnectionWatches(backend, watchesMax, watchPendingBytesMax, this::event);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        watches.closeAll();
        super.channelInactive(ctx);
    }

    /**
     * Whom this connection's requests count against: its TLS client certificate's name where it presented one, else
     * its source IP; null in process. Read at the first request, when TLS has completed.
     */
    private ClientId client(ChannelHandlerContext ctx) {
        if (client == null) {
            InetAddress ip = ClientGuard.clientOf(ctx.channel().remoteAddress());
            client = ServerTls.clientOf(ctx.channel()).orElse(ip == null ? null : ClientId.of(ip));
        }
        return client;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope request) {
        long requestId = request.requestId();
        ClientId counted = client(ctx);
        ErrorReply refused = counted == null ? null : guard.admit(counted);
        if (refused != null) {
            reply(ctx, requestId, refused);
            return;
        }
        if (inFlight >= inFlightMax) {
            reply(ctx, requestId, new ErrorReply(Status.UNAVAILABLE, "too many requests in flight"));
            return;
        }
        Message body = request.body();
        // A request in a namespace is the bare one wrapped: what it asks is the inner message's.
        Message inner = body instanceof InNamespace n ? n.body() : body;
        String namespace = body instanceof InNamespace n ? n.namespace() : NamespaceDefinition.DEFAULT;
        if (inner instanceof ClientWatch w) {
            watches.watch(ctx.channel(), requestId, namespace, w);
            return;
        }
        if (inner instanceof ClientUnwatch u) {
            watches.unwatch(u.watchRequestId());
            return;
        }
        if (!isClientRequest(inner)) {
            reply(ctx, requestId, new ErrorReply(Status.BAD_REQUEST, "not a client request: " + inner.type()));
            return;
        }
        inFlight++;
        CompletableFuture<Message> served;
        try {
            // The storage share counts the put itself (its bytes and TTL), in whatever namespace it is stored.
            served = inner instanceof ClientPut put && client != null
                    ? guard.put(client, put, () -> backend.request(body))
                    : backend.request(body);
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
        // The codec encodes on this thread, so a reply it refuses fails here, before the flush, and the client still
        // gets an answer for its request id.
        ctx.write(new Envelope(null, requestId, reply)).addListener(written -> {
            if (written.cause() instanceof EncoderException refused) {
                log.warn("cannot encode the reply to request {}: {}", requestId, refused.getCause());
                ctx.write(new Envelope(null, requestId, new ErrorReply(Status.INTERNAL, "reply could not be encoded")),
                        ctx.voidPromise());
            }
        });
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

    /** One watch event out, with its watch's request id; flushed with the loop task's other writes. */
    private void event(long requestId, Message event) {
        reply(context, requestId, event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // A client that does not read its replies stops being read from, so its requests cannot pile up replies.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    private static boolean isClientRequest(Message m) {
        return m.type() == MessageType.CLIENT_PUT || m.type() == MessageType.CLIENT_GET
                || m.type() == MessageType.CLIENT_REMOVE || m.type() == MessageType.CLIENT_RING;
    }

    private static String truncate(String s) {
        return s.length() <= DETAIL_CHARS_MAX ? s : s.substring(0, DETAIL_CHARS_MAX);
    }
}
