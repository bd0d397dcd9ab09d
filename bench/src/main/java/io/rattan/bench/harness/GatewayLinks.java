package io.rattan.bench.harness;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rattan.api.Address;
import io.rattan.api.Cost;
import io.rattan.api.Status;
import io.rattan.client.netty.EnvelopeCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The table's client side: one connection to each node's binary gateway, every one on a single event-loop thread,
 * which also runs the rounds' races and timers, as the simulator's one thread runs its clients ({@code SimClients}).
 * Each request goes out as an envelope of its own and is answered with the node's raw reply, so that a race sees
 * every copy's answer and the cost it carries, winner or not; the Java client hides the losing copies. A request
 * that has no answer after its give-up time is answered with a {@link Status#TIMEOUT} error, as the simulator's
 * client gives up.
 */
final class GatewayLinks implements AutoCloseable {

    private static final int LENGTH_FIELD_BYTES = 4;

    private record Waiting(int node, Consumer<Message> answer, ScheduledFuture<?> timer) {
    }

    private final EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("rattan-table", true));
    private final EventLoop loop = group.next();
    private final MessageCodec codec = new MessageCodec();
    private final List<Address> gateways;
    private final Channel[] channels;
    // Confined to the loop, as are the ids.
    private final Map<Long, Waiting> waiting = new HashMap<>();
    private long nextRequestId = 1;

    private final Scheduler scheduler = new Scheduler() {
        @Override
        public Cancellable schedule(long delayNanos, Runnable task) {
            ScheduledFuture<?> f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        }

        @Override
        public void execute(Runnable task) {
            loop.execute(task);
        }
    };

    private static final Clock CLOCK = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long epochMillis() {
            return System.currentTimeMillis();
        }
    };

    GatewayLinks(List<Address> gateways) {
        this.gateways = List.copyOf(gateways);
        this.channels = new Channel[gateways.size()];
    }

    /** Connects to every gateway, one after another; names the first that does not accept within the timeout. */
    void connectAll(long timeoutMillis) throws IOException {
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeoutMillis)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(codec.frameBytesMax()
                                + LENGTH_FIELD_BYTES, 0, LENGTH_FIELD_BYTES, 0, LENGTH_FIELD_BYTES));
                        ch.pipeline().addLast(EnvelopeCodec.withScratch(codec));
                        ch.pipeline().addLast(new Replies());
                    }
                });
        for (int i = 0; i < gateways.size(); i++) {
            Address a = gateways.get(i);
            ChannelFuture f = b.connect(a.host(), a.port());
            if (!f.awaitUninterruptibly(timeoutMillis + 1000) || !f.isSuccess()) {
                throw new IOException("node " + i + "'s binary gateway " + a + " does not accept connections ("
                        + (f.cause() == null ? "no answer" : f.cause().getMessage()) + "): is the cluster running?");
            }
            int node = i;
            channels[i] = f.channel();
            // A lost connection fails what waits on it at once, rather than at each request's give-up time.
            f.channel().closeFuture().addListener(c -> loop.execute(() -> failAll(node)));
        }
    }

    Scheduler scheduler() {
        return scheduler;
    }

    Clock clock() {
        return CLOCK;
    }

    EventLoop loop() {
        return loop;
    }

    /**
     * Sends {@code request} to node {@code node}'s gateway; {@code answer} gets its reply, or an error when the
     * connection is lost or nothing came within {@code giveUpNanos}. Only on the loop.
     */
    void send(int node, Message request, long giveUpNanos, Consumer<Message> answer) {
        long id = nextRequestId++;
        ScheduledFuture<?> timer = loop.schedule(() -> answer(id, new ErrorReply(Status.TIMEOUT,
                "client: no answer from node " + node + "'s gateway")), giveUpNanos, TimeUnit.NANOSECONDS);
        waiting.put(id, new Waiting(node, answer, timer));
        Channel ch = channels[node];
        if (ch == null || !ch.isActive()) {
            // Never answered from within the send: a race's launcher expects its answers later, as the network's.
            loop.execute(() -> answer(id, new ErrorReply(Status.UNAVAILABLE, "client: no connection to node "
                    + node)));
            return;
        }
        ch.writeAndFlush(new Envelope(null, id, request)).addListener(f -> {
            if (!f.isSuccess()) {
                answer(id, new ErrorReply(Status.UNAVAILABLE, "client: cannot send to node " + node + ": "
                        + f.cause()));
            }
        });
    }

    /** As {@link #send}, from any thread, for the put phase's requests. */
    CompletableFuture<Message> request(int node, Message request, long giveUpNanos) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        loop.execute(() -> send(node, request, giveUpNanos, reply::complete));
        return reply;
    }

    /** Requests sent and not yet answered or given up. Only on the loop. */
    int outstanding() {
        return waiting.size();
    }

    /** What one message of {@code body} costs on a client connection: encoded, plus {@link Cost#HEADER_BYTES}. */
    long wireBytes(Message body) {
        return codec.encodedSize(new Envelope(null, 1, body)) + (long) Cost.HEADER_BYTES;
    }

    private void answer(long id, Message reply) {
        Waiting w = waiting.remove(id);
        if (w != null) {
            w.timer().cancel(false);
            w.answer().accept(reply);
        }
    }

    private void failAll(int node) {
        for (Long id : List.copyOf(waiting.keySet())) {
            Waiting w = waiting.get(id);
            if (w != null && w.node() == node) {
                answer(id, new ErrorReply(Status.UNAVAILABLE, "client: connection to node " + node + " closed"));
            }
        }
    }

    @Override
    public void close() {
        for (Channel ch : channels) {
            if (ch != null) {
                ch.close();
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Hands each reply to the request that waits for it; a reply to a request given up is dropped. */
    private final class Replies extends SimpleChannelInboundHandler<Envelope> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Envelope e) {
            answer(e.requestId(), e.body());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
