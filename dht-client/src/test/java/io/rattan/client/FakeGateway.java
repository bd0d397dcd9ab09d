package io.rattan.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gateway for tests: a Netty server on 127.0.0.1 and an ephemeral port that speaks the client protocol over a
 * plain in-memory multi-value store, and can be told to misbehave (drop, close, answer errors, send garbage, hold
 * replies and release them in reverse order). Requests are handled on the server's single event loop; the knobs and
 * counters may be used from any thread.
 */
final class FakeGateway implements AutoCloseable {

    /** The cost every get page reports: one hop's forward and ack, and the reply. */
    static final Cost PAGE_COST = new Cost(3, 3 * Cost.HEADER_BYTES + 120);

    /** What the gateway does with each request, unless a one-shot script below says otherwise. */
    enum Mode {
        /** Answers from its store. */
        SERVE,
        /** Reads the request and never answers. */
        DROP,
        /** Closes the connection on every request. */
        CLOSE,
        /** Answers every request with an {@link ErrorReply} of status UNAVAILABLE. */
        UNAVAILABLE
    }

    /** The values under each key, by value hash; shared when several gateways front one "DHT". */
    static final class Store {
        private final Map<Id, NavigableMap<Bytes, Stored>> keys = new ConcurrentHashMap<>();

        /** A value as the gateway holds it; {@code stamp} is an owned value's, kept as sent and never checked. */
        record Stored(Bytes value, Bytes binding, long expiresAtMillis, OwnerStamp stamp) {
        }

        /** Holds {@code stored} under {@code key} as it is: how a test plants what no honest node would serve. */
        void plant(Id key, Stored stored) {
            keys.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(stored.value().sha256(), stored);
        }

        int size(Id key) {
            NavigableMap<Bytes, Stored> m = keys.get(key);
            return m == null ? 0 : m.size();
        }
    }

    private final EventLoopGroup group;
    private final Channel server;
    private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final MessageCodec codec = new MessageCodec();
    private final Store store;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final List<Message> received = new CopyOnWriteArrayList<>();

    private volatile Mode mode = Mode.SERVE;
    private volatile int pageValuesMax = 1000;
    private final AtomicInteger failNext = new AtomicInteger();
    private volatile Status failStatus = Status.UNAVAILABLE;
    private volatile int failRetryAfterMillis;
    private final AtomicInteger closeNext = new AtomicInteger();
    private final AtomicInteger garbageNext = new AtomicInteger();
    private volatile boolean holding;
    private volatile List<Contact> holders = List.of();
    private volatile int hops = 1;
    private volatile Status quorumStatus = Status.OK;
    private final Deque<Runnable> held = new ArrayDeque<>(); // guarded by itself

    private FakeGateway(Store store, int port) throws InterruptedException {
        this.store = store;
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("fake-gateway", true));
        this.server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.incrementAndGet();
                        children.add(ch);
                        ch.pipeline().addLast(
                                new LengthFieldBasedFrameDecoder(MessageCodec.DEFAULT_FRAME_BYTES_MAX + 4, 0, 4, 0, 4),
                                new LengthFieldPrepender(4),
                                new Handler());
                    }
                })
                .bind("127.0.0.1", port).sync().channel();
    }

    /** A gateway with a store of its own. */
    /** A loopback port with nothing listening: bound, then released (a killed gateway refuses connections). */
    static Address deadAddress() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return new Address("127.0.0.1", s.getLocalPort());
        }
    }

    static FakeGateway start() throws InterruptedException {
        return new FakeGateway(new Store(), 0);
    }

    /** A gateway with a store of its own on {@code port}: a gateway that comes back where it was. */
    static FakeGateway startOn(int port) throws InterruptedException {
        return new FakeGateway(new Store(), port);
    }

    /** A gateway over {@code store}, which other gateways may share. */
    static FakeGateway start(Store store) throws InterruptedException {
        return new FakeGateway(store, 0);
    }

    Address address() {
        return new Address("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
    }

    Store store() {
        return store;
    }

    FakeGateway mode(Mode m) {
        this.mode = m;
        return this;
    }

    /** Most values per get page. */
    FakeGateway pageValuesMax(int n) {
        this.pageValuesMax = n;
        return this;
    }

    /** Answers the next {@code n} requests with an {@link ErrorReply} of {@code status}. */
    FakeGateway failNext(int n, Status status) {
        return failNext(n, status, 0);
    }

    /** Answers the next {@code n} requests with an {@link ErrorReply} of {@code status} and retry advice. */
    FakeGateway failNext(int n, Status status, int retryAfterMillis) {
        this.failStatus = status;
        this.failRetryAfterMillis = retryAfterMillis;
        failNext.set(n);
        return this;
    }

    /** Closes the connection on the next {@code n} requests. */
    FakeGateway closeNext(int n) {
        closeNext.set(n);
        return this;
    }

    /** Answers the next {@code n} requests with an undecodable frame. */
    FakeGateway garbageNext(int n) {
        garbageNext.set(n);
        return this;
    }

    /** Quorum gets are answered with this status (OK, or PARTIAL), as having read the R replicas they asked for. */
    FakeGateway quorumStatus(Status s) {
        quorumStatus = s;
        return this;
    }

    /**
     * Names {@code contacts} as the key's holders in every get answer that asks for them ({@code wantHolders}), and
     * reports {@code hops} hops: 0 as a replica answering itself would.
     */
    FakeGateway holders(List<Contact> contacts, int getHops) {
        this.holders = List.copyOf(contacts);
        this.hops = getHops;
        return this;
    }

    /** While holding, served replies are kept back until {@link #releaseHeldInReverse()}. */
    FakeGateway hold(boolean on) {
        this.holding = on;
        return this;
    }

    int heldCount() {
        synchronized (held) {
            return held.size();
        }
    }

    /** Sends every held reply, the last-held first, and stops holding. */
    void releaseHeldInReverse() {
        List<Runnable> toSend = new ArrayList<>();
        synchronized (held) {
            holding = false;
            while (!held.isEmpty()) {
                toSend.add(held.pollLast());
            }
        }
        toSend.forEach(Runnable::run);
    }

    /** Connections accepted since the start. */
    int acceptedConnections() {
        return accepted.get();
    }

    /** Requests received since the start. */
    int requests() {
        return requests.get();
    }

    /** Requests of the given type received since the start. */
    long requests(Class<? extends Message> type) {
        return received.stream().filter(type::isInstance).count();
    }

    List<Message> received() {
        return List.copyOf(received);
    }

    /** Stops listening and closes every connection; idempotent, so that a test may stop a gateway midway. */
    @Override
    public void close() {
        if (group.isShuttingDown()) {
            return;
        }
        server.close().syncUninterruptibly();
        children.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            Envelope request = codec.decode(ByteBufUtil.getBytes(frame));
            if (request.body() instanceof ClientRing) {
                // A client's background ring load: answered with no node, and not counted among the test's requests.
                ctx.writeAndFlush(Unpooled.wrappedBuffer(codec.encode(new Envelope(null, request.requestId(),
                        new RingReply(List.of(), Bytes.EMPTY, 3)))));
                return;
            }
            requests.incrementAndGet();
            received.add(request.body());
            if (takeOne(closeNext) || mode == Mode.CLOSE) {
                ctx.close();
                return;
            }
            if (takeOne(garbageNext)) {
                // Version 127 and an unknown tag: no codec accepts it.
                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {0x7F, 0x7F, 0, 1, 2, 3}));
                return;
            }
            if (mode == Mode.DROP) {
                return;
            }
            Message reply;
            if (takeOne(failNext)) {
                reply = new ErrorReply(failStatus, "scripted failure", failRetryAfterMillis);
            } else if (mode == Mode.UNAVAILABLE) {
                reply = new ErrorReply(Status.UNAVAILABLE, "scripted: unavailable");
            } else {
                reply = serve(request.body());
            }
            byte[] bytes = codec.encode(new Envelope(null, request.requestId(), reply));
            Runnable send = () -> ctx.writeAndFlush(Unpooled.wrappedBuffer(bytes));
            synchronized (held) {
                if (holding) {
                    held.addLast(send);
                    return;
                }
            }
            send.run();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private static boolean takeOne(AtomicInteger counter) {
        return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    private Message serve(Message m) {
        long now = System.currentTimeMillis();
        switch (m.type()) {
            case CLIENT_PUT: {
                ClientPut p = (ClientPut) m;
                store.keys.computeIfAbsent(p.key(), k -> new ConcurrentSkipListMap<>())
                        .put(p.value().sha256(), new Store.Stored(p.value(), p.binding(),
                                p.stamp() != null ? p.stamp().expiresAtMillis() : now + p.ttlSeconds() * 1000L,
                                p.stamp()));
                return new PutReply(Status.OK, 3, "");
            }
            case CLIENT_GET: {
                ClientGet g = (ClientGet) m;
                NavigableMap<Bytes, Store.Stored> all = store.keys.getOrDefault(g.key(), new ConcurrentSkipListMap<>());
                NavigableMap<Bytes, Store.Stored> after = g.placemark().isEmpty() ? all
                        : all.tailMap(g.placemark(), false);
                int limit = Math.min(g.maxValues(), pageValuesMax);
                List<Contact> named = g.wantHolders() ? holders : List.of();
                boolean quorum = g.options().quorum();
                Status status = quorum ? quorumStatus : Status.OK;
                int read = quorum ? Math.max(1, g.options().readReplicas()) : 0;
                List<ValueEntry> values = new ArrayList<>();
                Bytes last = Bytes.EMPTY;
                for (Map.Entry<Bytes, Store.Stored> e : after.entrySet()) {
                    if (values.size() == limit) {
                        return new GetReply(status, values, last, hops, "", PAGE_COST, named, read);
                    }
                    values.add(new ValueEntry(e.getValue().value(), e.getValue().expiresAtMillis() - now,
                            e.getValue().stamp()));
                    last = e.getKey();
                }
                return new GetReply(status, values, Bytes.EMPTY, hops, "", PAGE_COST, named, read);
            }
            case CLIENT_REMOVE: {
                ClientRemove r = (ClientRemove) m;
                NavigableMap<Bytes, Store.Stored> values = store.keys.get(r.key());
                Store.Stored s = values == null ? null : values.get(r.valueHash());
                if (s == null) {
                    return new RemoveReply(Status.NOT_FOUND, "");
                }
                if (!SecretBinding.opens(r.secret(), r.key(), r.valueHash(), s.binding())) {
                    return new RemoveReply(Status.FORBIDDEN, "wrong secret");
                }
                values.remove(r.valueHash());
                return new RemoveReply(Status.OK, "");
            }
            default:
                return new ErrorReply(Status.BAD_REQUEST, "not a client request: " + m.type());
        }
    }
}
