package io.rattan.bench.harness;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.rattan.api.Address;
import io.rattan.node.netty.EventLoops;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small HTTP/1.1 server on 127.0.0.1 and a free port for the HTTP client's tests, counting the connections it
 * accepts. By path: {@code /ok/…} answers 200 with {@code ok <path>}; {@code /status/N} answers N with
 * {@code status N}; {@code /echo} answers 201 with the request's content type, {@code |} and its body;
 * {@code /stall} never answers; {@code /chunked} answers two lines in chunks 100 ms apart, then ends 100 ms later;
 * {@code /unframed} answers with neither length nor chunks and ends the body by closing; {@code /close} answers 200
 * with {@code Connection: close} and closes.
 */
final class HttpTestServer implements AutoCloseable {

    private final EventLoopGroup group = EventLoops.newGroup(1, "http-test-server");
    private final Channel server;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();

    HttpTestServer() {
        server = new ServerBootstrap()
                .group(group)
                .channel(EventLoops.serverChannelClass(group))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.incrementAndGet();
                        open.incrementAndGet();
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                new Handler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
    }

    Address address() {
        return new Address("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }

    /** Requests received so far. */
    int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            requests.incrementAndGet();
            String path = req.uri();
            if (path.startsWith("/ok/")) {
                ctx.writeAndFlush(full(HttpResponseStatus.OK, "ok " + path));
            } else if (path.startsWith("/status/")) {
                int code = Integer.parseInt(path.substring("/status/".length()));
                ctx.writeAndFlush(full(HttpResponseStatus.valueOf(code), "status " + code));
            } else if (path.equals("/echo")) {
                String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
                String body = req.content().toString(StandardCharsets.UTF_8);
                ctx.writeAndFlush(full(HttpResponseStatus.CREATED, type + "|" + body));
            } else if (path.equals("/stall")) {
                return;
            } else if (path.equals("/chunked")) {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                HttpUtil.setTransferEncodingChunked(head, true);
                ctx.writeAndFlush(head);
                ctx.writeAndFlush(new DefaultHttpContent(utf8("line 1\n")));
                ctx.executor().schedule(() -> {
                    ctx.writeAndFlush(new DefaultHttpContent(utf8("line 2\n")));
                    ctx.executor().schedule(() -> ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT),
                            100, TimeUnit.MILLISECONDS);
                }, 100, TimeUnit.MILLISECONDS);
            } else if (path.equals("/unframed")) {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                ctx.write(head);
                ctx.writeAndFlush(new DefaultLastHttpContent(utf8("until the end")))
                        .addListener(ChannelFutureListener.CLOSE);
            } else if (path.equals("/close")) {
                FullHttpResponse r = full(HttpResponseStatus.OK, "bye");
                r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.writeAndFlush(full(HttpResponseStatus.NOT_FOUND, "no " + path));
            }
        }

        private FullHttpResponse full(HttpResponseStatus status, String body) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, utf8(body));
            HttpUtil.setContentLength(r, r.content().readableBytes());
            return r;
        }
    }

    private static io.netty.buffer.ByteBuf utf8(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    /** For tests that read a body back. */
    static String text(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }
}
