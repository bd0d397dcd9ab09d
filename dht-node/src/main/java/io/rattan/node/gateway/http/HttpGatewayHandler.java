package io.rattan.node.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.api.Bytes;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.limits.ClientId;
import io.rattan.node.netty.TransportListener.Refusal;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.ServerTls;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin end of the HTTP pipeline: copies each aggregated request out of Netty's buffers, hands it to the
 * {@link ApiRouter}, and writes the answer.
 *
 * <p>One request per connection is in flight at a time, and responses leave in request order, as HTTP/1.1
 * requires of pipelined requests. While a request is in flight the channel stops reading, so a client cannot queue
 * more than what one read delivered, and while the connection's write buffer is above its high-water mark (a client
 * that pipelines requests but does not read the answers) nothing more is read or served until it drains. Each
 * request spends one of the client's rate ({@link ClientGuard}): above it, the answer is a 429 with Retry-After.
 * Every answer is guaranteed: if the node has not answered within its own
 * request timeout plus {@link #ANSWER_SLACK_MILLIS} ({@link #LISTING_ANSWER_MILLIS} for the admin listing), the client
 * gets a 504. All state is touched on the channel's
 * event loop only; answers computed on the node's loop hop back here.
 */
final class HttpGatewayHandler extends ChannelInboundHandlerAdapter {

    /** How long past the node's request timeout the gateway waits before answering 504 itself. */
    static final long ANSWER_SLACK_MILLIS = 1_000;
    /**
     * How long the admin listing ({@code GET /admin/records}, loopback callers only) may take: it reads the whole
     * store, which at 85,000 records of 1 KiB on a loaded node took longer than a request's timeout; answering 504
     * then only made the caller ask again, while the abandoned read went on. A backup ({@code POST /admin/backup})
     * gets as long.
     */
    static final long LISTING_ANSWER_MILLIS = 120_000;
    /** Most requests waiting on one connection; beyond this a client is pipelining abusively and is cut off. */
    static final int QUEUED_MAX = 256;

    private static final Logger LOG = LoggerFactory.getLogger(HttpGatewayHandler.class);

    private final ApiRouter router;
    private final long answerTimeoutMillis;
    private final ClientGuard guard;
    private final TransportListener listener;
    // The tokens a request must carry one of, or null when none is needed.
    private final BearerTokens tokens;
    private final ArrayDeque<ApiRequest> queue = new ArrayDeque<>();
    private InetAddress client;
    // The connection's client for rates and shares, once known; see connectionClient.
    private ClientId connectionClient;
    private boolean busy;
    /** The watch this connection streams, if any: it holds the connection until it ends. */
    private SseStream stream;

    HttpGatewayHandler(ApiRouter router, long answerTimeoutMillis, ClientGuard guard, TransportListener listener,
                       BearerTokens tokens) {
        this.router = router;
        this.tokens = tokens;
        this.answerTimeoutMillis = answerTimeoutMillis;
        this.guard = guard;
        this.listener = listener;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        client = ClientGuard.clientOf(ctx.channel().remoteAddress());
        super.channelActive(ctx);
    }

    /**
     * Whom a request without a token counts against: the TLS client certificate's name, else the source IP. Read
     * once per connection, at its first request (TLS has completed by then), not parsed again for each request.
     */
    private ClientId connectionClient(ChannelHandlerContext ctx) {
        if (connectionClient == null) {
            connectionClient = ServerTls.clientOf(ctx.channel()).orElse(client == null ? null : ClientId.of(client));
        }
        return connectionClient;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        FullHttpRequest request = (FullHttpRequest) msg;
        if (stream != null) {
            // A stream answers its request for as long as the connection lives: no later request can be answered.
            request.release();
            LOG.debug("closing {}: a request on a connection that streams a watch", ctx.channel());
            ctx.close();
            return;
        }
        RequestDeadline deadline = ctx.pipeline().get(RequestDeadline.class);
        if (deadline != null) {
            deadline.requestComplete();
        }
        try {
            queue.add(copy(request).from(client, principal(ctx, request)));
        } finally {
            request.release();
        }
        if (queue.size() > QUEUED_MAX) {
            LOG.debug("closing {}: more than {} pipelined requests", ctx.channel(), QUEUED_MAX);
            queue.clear();
            ctx.close();
            return;
        }
        serveNext(ctx);
    }

    /**
     * Whom {@code request} counts against: where tokens are needed, its token's client (null for none valid), but a
     * probe's connection's; else its connection's ({@link #connectionClient}).
     */
    private ClientId principal(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (tokens == null || HttpAccess.isProbe(request.uri())) {
            return connectionClient(ctx);
        }
        return tokens.clientOf(request.headers().get(HttpHeaderNames.AUTHORIZATION)).orElse(null);
    }

    private static ApiRequest copy(FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            String why = cause == null || cause.getMessage() == null ? "not HTTP" : cause.getMessage();
            return ApiRequest.malformed(why);
        }
        byte[] body = new byte[request.content().readableBytes()];
        request.content().getBytes(request.content().readerIndex(), body);
        Map<String, List<String>> owner = new HashMap<>();
        for (String name : OwnerHeaders.ALL) {
            List<String> values = request.headers().getAll(name);
            if (!values.isEmpty()) {
                owner.put(name, values);
            }
        }
        return ApiRequest.of(request.method().name(), request.uri(),
                request.headers().getAll(KeysResource.SECRET_HEADER), Bytes.wrap(body), HttpUtil.isKeepAlive(request),
                owner).withLastEventIds(request.headers().getAll(WatchResource.LAST_EVENT_ID));
    }

    private void serveNext(ChannelHandlerContext ctx) {
        if (busy || queue.isEmpty()) {
            return;
        }
        ApiRequest request = queue.poll();
        busy = true;
        ctx.channel().config().setAutoRead(false);
        // Without a valid token a request counts against its IP, so that guessing tokens is rate limited too.
        boolean unauthorized = tokens != null && request.principal() == null && !request.isMalformed()
                && !HttpAccess.isProbe(request.uri());
        ClientId counted = unauthorized && client != null ? ClientId.of(client) : request.principal();
        ErrorReply refused = counted == null || request.isMalformed() ? null : guard.admit(counted);
        if (refused != null) {
            listener.refused(Refusal.RATE);
            respond(ctx, request, Problems.forError(refused));
            return;
        }
        if (unauthorized) {
            tokens.refusedOne();
            respond(ctx, request, Problems.unauthorized());
            return;
        }
        CompletableFuture<ApiResponse> answer = new CompletableFuture<>();
        long wait = request.uri().startsWith("/admin/records") || request.uri().startsWith("/admin/backup")
                ? Math.max(answerTimeoutMillis, LISTING_ANSWER_MILLIS) : answerTimeoutMillis;
        ScheduledFuture<?> timer = ctx.executor().schedule(
                () -> answer.complete(Problems.timeout("the node did not answer within " + wait + " ms")),
                wait, TimeUnit.MILLISECONDS);
        CompletableFuture<ApiResponse> routed;
        try {
            routed = router.route(request);
        } catch (RuntimeException e) {
            routed = CompletableFuture.failedFuture(e);
        }
        routed.whenComplete((response, error) -> {
            if (error != null) {
                LOG.warn("HTTP gateway failed to serve {} {}", request.method(), request.uri(), error);
                answer.complete(Problems.internal("the gateway failed to serve the request"));
            } else {
                answer.complete(response);
            }
        });
        answer.thenAccept(response -> {
            timer.cancel(false);
            try {
                ctx.executor().execute(() -> respond(ctx, request, response));
            } catch (RejectedExecutionException e) {
                // The event loop is shutting down; the connection goes with it.
            }
        });
    }

    private void respond(ChannelHandlerContext ctx, ApiRequest request, ApiResponse response) {
        busy = false;
        if (!ctx.channel().isActive()) {
            queue.clear();
            return;
        }
        if (response.watch() != null) {
            startStream(ctx, request, response);
            return;
        }
        boolean keepAlive = request.keepAlive() && !response.close();
        ChannelFutureListener after = keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE;
        ctx.writeAndFlush(toNetty(response, keepAlive)).addListener(after);
        if (!keepAlive) {
            queue.clear();
            return;
        }
        resume(ctx);
    }

    /**
     * Streams the watch the response names: the connection stays busy (nothing queued behind it is served) but is
     * read, so that a client that leaves is seen at once and its watch closed. A watch the node refuses is answered
     * as any request.
     */
    private void startStream(ChannelHandlerContext ctx, ApiRequest request, ApiResponse response) {
        busy = true;
        queue.clear();
        stream = new SseStream(ctx, response, listener, refusal -> {
            stream = null;
            respond(ctx, request, refusal);
        });
        ctx.channel().config().setAutoRead(true);
        stream.start(router.backend(), response.watch(), answerTimeoutMillis);
    }

    /** Serves the next queued request, or reads again, unless the client is not reading what it was sent. */
    private void resume(ChannelHandlerContext ctx) {
        if (busy || !ctx.channel().isWritable()) {
            return;
        }
        if (queue.isEmpty()) {
            ctx.channel().config().setAutoRead(true);
        } else {
            serveNext(ctx);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (stream != null) {
            // A stream keeps reading, to see its client leave; it bounds a client that does not read itself.
            super.channelWritabilityChanged(ctx);
            return;
        }
        if (ctx.channel().isWritable()) {
            resume(ctx);
        } else {
            ctx.channel().config().setAutoRead(false);
        }
        super.channelWritabilityChanged(ctx);
    }

    static FullHttpResponse toNetty(ApiResponse response, boolean keepAlive) {
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()),
                Unpooled.wrappedBuffer(response.body().toByteArray()));
        if (response.contentType() != null) {
            out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
        }
        for (Map.Entry<String, String> h : response.headers().entrySet()) {
            out.headers().set(h.getKey(), h.getValue());
        }
        if (response.status() != HttpResponseStatus.NO_CONTENT.code()) {
            // A 204 must not carry Content-Length (RFC 9110, 8.6).
            HttpUtil.setContentLength(out, response.body().length());
        }
        out.headers().set(HttpHeaderNames.CONNECTION,
                keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        return out;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            if (stream != null) {
                // A stream is never idle: its keep-alive comments, and its own bound on a client that does not read.
                return;
            }
            // Idle between requests, or stalled: a client that has not read its answers for the whole idle time
            // holds up to the high-water mark of them, and is cut off rather than kept.
            if (!busy && (queue.isEmpty() || !ctx.channel().isWritable())) {
                listener.refused(Refusal.IDLE);
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        queue.clear();
        if (stream != null) {
            stream.closed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and broken pipes are a client's business; anything else is worth a line, never a crash.
        LOG.debug("HTTP connection {} failed", ctx.channel(), cause);
        ctx.close();
    }
}
