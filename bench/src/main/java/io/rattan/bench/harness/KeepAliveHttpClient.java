package io.rattan.bench.harness;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.api.Address;
import io.rattan.node.netty.EventLoops;
import java.io.IOException;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lean HTTP/1.1 client on Netty for the harness's HTTP targets: keep-alive connections pooled per endpoint, one
 * request at a time on each (no pipelining), so as many connections to an endpoint open as requests are ever in
 * flight to it at once, and are reused from then on. {@code java.net.http} cost the harness ~0.9 ms and a good share
 * of a core per request on a 2-core machine, more than the gateways it measured.
 *
 * <p>Each request has one timeout, from {@link #send} to the end of the whole answer (a chunked or close-delimited
 * body is read to its end): when it runs out the future fails with a {@link TimeoutException} and the connection is
 * closed, since an answer may still be on its way on it. A failed connect or a connection that closes before the
 * whole answer fails the future with an {@link IOException}. The futures complete on the client's I/O threads, after
 * the connection is back in the pool (so a caller that sends again at once reuses it): callbacks must not block.
 * Thread-safe. {@link #close()} closes every connection and ends the threads.
 */
final class KeepAliveHttpClient implements AutoCloseable {

    /** The largest answer body read; a larger one fails the request (a get answer is far smaller). */
    static final int MAX_BODY_BYTES = 64 << 20;

    private final long timeoutNanos;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Map<Address, Deque<Connection>> idle = new ConcurrentHashMap<>();
    private final AtomicInteger opened = new AtomicInteger();
    private volatile boolean closed;

    /** A client whose requests each end within {@code timeout}, on {@code ioThreads} I/O threads. */
    KeepAliveHttpClient(Duration timeout, int ioThreads) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.group = EventLoops.newGroup(ioThreads, "rattan-bench-http");
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(EventLoops.socketChannelClass(group))
                // A request goes out in one write, but an answer must not wait for a delayed ACK either.
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        Math.max(1, timeout.toMillis())))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("codec", new HttpClientCodec())
                                .addLast("aggregate", new HttpObjectAggregator(MAX_BODY_BYTES))
                                .addLast("exchange", new Connection(ch));
                    }
                });
    }

    /** A status and the whole body of an answer. */
    record Answer(int status, byte[] body) {
    }

    /**
     * Sends {@code method pathAndQuery} to {@code to} on an idle connection to it, or a new one, with {@code body}
     * (none when null) of {@code contentType}; the future has the answer, whatever its status.
     */
    CompletableFuture<Answer> send(Address to, HttpMethod method, String pathAndQuery, String contentType,
                                   byte[] body) {
        Exchange ex = new Exchange(to, method, pathAndQuery, contentType, body, System.nanoTime() + timeoutNanos);
        if (closed) {
            ex.future.completeExceptionally(new IOException("the HTTP client is closed"));
            return ex.future;
        }
        Connection c = pooled(to);
        if (c != null) {
            try {
                // One task on the connection's loop both arms the timer and writes: one wake-up of the loop.
                c.channel.eventLoop().execute(() -> c.start(ex));
            } catch (RuntimeException e) {
                // The group is shutting down (close() raced with this send).
                ex.fail(e);
            }
        } else {
            connect(ex);
        }
        return ex.future;
    }

    /** Connections opened so far (not counting the ones that failed to connect): what keep-alive saves. */
    int connectionsOpened() {
        return opened.get();
    }

    /** Closes every connection, failing what is in flight, and ends the I/O threads; returns when they have. */
    @Override
    public void close() {
        closed = true;
        idle.clear();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private Connection pooled(Address to) {
        Deque<Connection> d = idle.get(to);
        if (d == null) {
            return null;
        }
        Connection c;
        // The most recently used first: a burst's extra connections go cold and the hot ones stay hot.
        while ((c = d.pollLast()) != null) {
            if (c.channel.isActive()) {
                return c;
            }
        }
        return null;
    }

    private void connect(Exchange ex) {
        ChannelFuture cf;
        try {
            // The timeout covers the connect too, so its timer starts now, on some loop.
            ex.timer = group.next().schedule(ex::timeOut, ex.remainingNanos(), TimeUnit.NANOSECONDS);
            cf = bootstrap.connect(ex.to.host(), ex.to.port());
        } catch (RuntimeException e) {
            // The group is shutting down (close() raced with this send).
            ex.fail(e);
            return;
        }
        cf.addListener(f -> {
            if (!f.isSuccess()) {
                ex.fail(f.cause());
                return;
            }
            opened.incrementAndGet();
            cf.channel().pipeline().get(Connection.class).start(ex);
        });
    }

    private void release(Connection c) {
        if (closed || !c.channel.isActive()) {
            c.channel.close();
            return;
        }
        idle.computeIfAbsent(c.to, k -> new ConcurrentLinkedDeque<>()).addLast(c);
        if (closed) {
            // close() ran meanwhile; the group closes the channel, but the pool must not keep it.
            idle.clear();
        }
    }

    /** One request, from its send until it ends exactly once: answered, failed or timed out. */
    private final class Exchange {
        final Address to;
        final HttpMethod method;
        final String pathAndQuery;
        final String contentType;
        final byte[] body;
        final long deadlineNanos;
        final CompletableFuture<Answer> future = new CompletableFuture<>();
        private final AtomicBoolean ended = new AtomicBoolean();
        volatile ScheduledFuture<?> timer;
        volatile Connection connection;

        Exchange(Address to, HttpMethod method, String pathAndQuery, String contentType, byte[] body,
                 long deadlineNanos) {
            this.to = to;
            this.method = method;
            this.pathAndQuery = pathAndQuery;
            this.contentType = contentType;
            this.body = body;
            this.deadlineNanos = deadlineNanos;
        }

        long remainingNanos() {
            return Math.max(0, deadlineNanos - System.nanoTime());
        }

        boolean ended() {
            return ended.get();
        }

        /** Claims the end of this exchange; true for the one caller that gets to complete the future. */
        boolean end() {
            if (!ended.compareAndSet(false, true)) {
                return false;
            }
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            return true;
        }

        FullHttpRequest request() {
            FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, pathAndQuery,
                    body == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
            r.headers().set(HttpHeaderNames.HOST, to.toString());
            if (body != null) {
                HttpUtil.setContentLength(r, body.length);
                if (contentType != null) {
                    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
                }
            }
            return r;
        }

        void timeOut() {
            if (end()) {
                Connection c = connection;
                if (c != null) {
                    // The answer may still come on it, so it cannot carry another request.
                    c.channel.close();
                }
                future.completeExceptionally(new TimeoutException("HTTP " + method + " http://" + to + pathAndQuery
                        + ": no whole answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
            }
        }

        void fail(Throwable cause) {
            if (end()) {
                Throwable e = cause instanceof ConnectTimeoutException
                        ? new TimeoutException("HTTP connect to " + to + ": " + cause.getMessage())
                        : cause;
                future.completeExceptionally(e);
            }
        }

        void answer(Answer a) {
            if (end()) {
                future.complete(a);
            }
        }
    }

    /** One connection's handler: at most one exchange at a time, the one whose answer it is reading. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> {
        final Channel channel;
        /** Written on the loop before the first request; read by the pool's users after a release. */
        volatile Address to;
        private volatile Exchange current;

        Connection(Channel channel) {
            this.channel = channel;
        }

        /** Runs on the channel's loop: sends {@code ex}'s request, unless it has already ended. */
        void start(Exchange ex) {
            to = ex.to;
            if (ex.ended()) {
                // Timed out while connecting: the fresh connection serves the next request.
                release(this);
                return;
            }
            current = ex;
            ex.connection = this;
            if (ex.timer == null) {
                ex.timer = channel.eventLoop().schedule(ex::timeOut, ex.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            if (ex.ended()) {
                // The timer of a connect ran on another loop between the check above and here, without seeing the
                // connection: close it, as the timer would have.
                current = null;
                channel.close();
                return;
            }
            channel.writeAndFlush(ex.request()).addListener(f -> {
                if (!f.isSuccess()) {
                    ex.fail(f.cause());
                    channel.close();
                }
            });
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse msg) {
            Exchange ex = current;
            current = null;
            if (ex == null) {
                // An answer to nothing asked: the connection's framing cannot be trusted any more.
                ctx.close();
                return;
            }
            if (msg.decoderResult().isFailure()) {
                ctx.close();
                ex.fail(new IOException("malformed HTTP answer from " + ex.to + ": " + msg.decoderResult().cause()));
                return;
            }
            Answer a = new Answer(msg.status().code(), ByteBufUtil.getBytes(msg.content()));
            if (!ex.ended() && HttpUtil.isKeepAlive(msg)) {
                // Back in the pool before the future completes, so that a caller sending again at once reuses it.
                release(this);
            } else {
                ctx.close();
            }
            ex.answer(a);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Address at = to;
            if (at != null) {
                Deque<Connection> d = idle.get(at);
                if (d != null) {
                    d.remove(this);
                }
            }
            Exchange ex = current;
            current = null;
            if (ex != null) {
                ex.fail(new IOException("HTTP connection to " + ex.to + " closed before the whole answer"));
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Exchange ex = current;
            current = null;
            if (ex != null) {
                ex.fail(cause);
            }
            ctx.close();
        }
    }
}
