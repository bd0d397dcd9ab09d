package io.rattan.node.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.WatchHandle;
import io.rattan.node.netty.TransportListener.Refusal;
import io.rattan.node.netty.TransportListener;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch streamed on one connection as server-sent events. The 200 head waits for the watch's first event, so
 * that a watch the node refuses (its first event is ENDED: the gateway serves its most watches, or no replica took
 * it) is answered as a problem instead, and the connection serves on; if the node has said nothing within the answer
 * timeout (its replicas are slow to find), the head goes anyway and the events follow. ENDED is written last, then
 * the stream ends and the connection closes.
 *
 * <p>Bounds: an idle stream carries a comment every {@link #KEEP_ALIVE_MILLIS}; a client that does not read is
 * dropped (its watch closed with its connection) as soon as its unsent events pass {@link #PENDING_BYTES_MAX}, or
 * when the connection is above its high-water mark at two keep-alives in a row. Nothing is buffered without end.
 *
 * <p>Confined to the channel's event loop (the node's, so events usually arrive there already; any that do not hop
 * there in order).
 */
final class SseStream {

    static final String EVENT_STREAM = "text/event-stream";
    /** How often an idle stream carries a comment line. */
    static final long KEEP_ALIVE_MILLIS = 15_000;
    /**
     * Most bytes of events waiting for a client: four times the connection's high-water mark, room for a key's
     * values sent at once when a watch starts, while a client that stopped reading holds no more.
     */
    static final long PENDING_BYTES_MAX = 4L * HttpGateway.WRITE_BUFFER_HIGH_BYTES;

    private static final Logger LOG = LoggerFactory.getLogger(SseStream.class);

    private final ChannelHandlerContext ctx;
    private final Map<String, String> headers;
    private final TransportListener listener;
    /** How a refused watch is answered: as any request's response, after which the connection serves on. */
    private final Consumer<ApiResponse> refused;
    private WatchHandle handle;
    private ScheduledFuture<?> headTimer;
    private ScheduledFuture<?> keepAlive;
    private boolean headSent;
    private boolean done;
    private boolean stalledAtLastTick;

    /**
     * @param ctx      the handler's context on the connection
     * @param response the router's answer, whose headers (CORS) the head carries
     * @param refused  answers a watch refused before its head
     */
    SseStream(ChannelHandlerContext ctx, ApiResponse response, TransportListener listener,
              Consumer<ApiResponse> refused) {
        this.ctx = ctx;
        this.headers = response.headers();
        this.listener = listener;
        this.refused = refused;
    }

    /** Starts the watch at the node; the head goes with its first event, or after {@code headWaitMillis}. */
    void start(GatewayBackend backend, Message watch, long headWaitMillis) {
        headTimer = ctx.executor().schedule(this::sendHead, headWaitMillis, TimeUnit.MILLISECONDS);
        WatchHandle h = watch instanceof InNamespace n
                ? backend.watch(n.namespace(), (ClientWatch) n.body(), this::fromNode)
                : backend.watch((ClientWatch) watch, this::fromNode);
        handle = h;
        if (done) {
            // Ended, or dropped, before the node handed the handle back.
            h.close();
        }
    }

    /** The node's sink: runs the event on the channel's loop, where it normally already is. */
    private void fromNode(WatchEvent e) {
        if (ctx.executor().inEventLoop()) {
            onEvent(e);
            return;
        }
        try {
            ctx.executor().execute(() -> onEvent(e));
        } catch (RejectedExecutionException ex) {
            // The loop is shutting down; the connection goes with it.
        }
    }

    private void onEvent(WatchEvent e) {
        if (done) {
            return;
        }
        boolean ended = e.kind() == WatchKind.ENDED;
        if (!headSent && ended) {
            finish();
            refused.accept(WatchResource.cors(Problems.forStatus(e.status(), e.detail())));
            return;
        }
        sendHead();
        if (!write(SseEvents.format(e))) {
            return;
        }
        if (ended) {
            finish();
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void sendHead() {
        if (headSent || done) {
            return;
        }
        headSent = true;
        cancel(headTimer);
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        headers.forEach((name, value) -> head.headers().set(name, value));
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, EVENT_STREAM);
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        // Proxies that buffer responses (nginx) pass this one through as it comes.
        head.headers().set("X-Accel-Buffering", "no");
        HttpUtil.setTransferEncodingChunked(head, true);
        ctx.writeAndFlush(head).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        keepAlive = ctx.executor().scheduleAtFixedRate(this::tick, KEEP_ALIVE_MILLIS, KEEP_ALIVE_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Writes one chunk, or drops the watcher when its unsent bytes would pass the bound; false when dropped. */
    private boolean write(byte[] chunk) {
        if (pendingBytes(ctx.channel()) + chunk.length > PENDING_BYTES_MAX) {
            drop("its unsent events passed " + PENDING_BYTES_MAX + " bytes");
            return false;
        }
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(chunk)))
                .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        return true;
    }

    /** Every keep-alive period: a comment if the client keeps up, the end of a client that stays behind. */
    private void tick() {
        if (done) {
            return;
        }
        if (!ctx.channel().isWritable()) {
            if (stalledAtLastTick) {
                drop("it stayed above the high-water mark for " + KEEP_ALIVE_MILLIS + " ms");
                return;
            }
            stalledAtLastTick = true;
            return;
        }
        stalledAtLastTick = false;
        write(SseEvents.KEEP_ALIVE);
    }

    private void drop(String why) {
        LOG.debug("dropping the slow watcher on {}: {}", ctx.channel(), why);
        listener.refused(Refusal.SLOW_WATCHER);
        finish();
        ctx.close();
    }

    /** The connection closed (the client left, or the stream ended): the watch ends with it. */
    void closed() {
        finish();
    }

    /** Whether the stream still runs: its head may be out or not, and its watch is open. */
    boolean isRunning() {
        return !done;
    }

    private void finish() {
        if (done) {
            return;
        }
        done = true;
        cancel(headTimer);
        cancel(keepAlive);
        if (handle != null) {
            handle.close();
        }
    }

    private static void cancel(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private static long pendingBytes(Channel channel) {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }
}
