package io.rattan.node;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.rattan.core.client.GetOptions;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.env.Transport;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.binary.ClientGatewayServer;
import io.rattan.node.gateway.http.HttpGateway;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.transport.DelayedTransport;
import io.rattan.node.transport.NettyTransport;
import io.rattan.node.transport.PeerServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Rattan node: the core {@link Node} on its own single-thread Netty event loop, with a RocksDB store,
 * the peer transport and server, the binary client gateway, the HTTP gateway and Prometheus metrics.
 *
 * <p>The loop runs both the node's logic and all of its sockets, so a frame that arrives is handed to the node with
 * no thread hop, and the node's sends are written on the same thread. Nothing but that loop ever touches the
 * {@link Node}: the public methods here post to it.
 *
 * <p>{@link #close} is a graceful leave (the node hands its values to their new replicas, then everything shuts
 * down); {@link #halt} is a crash: it sends nothing from the moment it is called. Both are idempotent, and only the
 * first of the two has any effect. Every public method is thread-safe, but {@link #close}, {@link #halt},
 * {@link #status} and {@link #isJoined} block, so they must not be called on the node's own loop (status and isJoined
 * excepted: on the loop they answer directly).
 */
public final class RattanNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    static final long START_TIMEOUT_MILLIS = 10_000;
    static final long STATUS_TIMEOUT_MILLIS = 5_000;
    static final long LEAVE_TIMEOUT_MILLIS = 10_000;
    static final long SHUTDOWN_TIMEOUT_MILLIS = 10_000;
    static final long METRICS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    // How often the node checks for its first ready: fine enough to time a start of a few hundred milliseconds.
    static final long READY_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    static final String STORE_DIR = "store";

    private enum State { RUNNING, CLOSING, CLOSED, HALTED }

    private final NodeOptions options;
    private final Contact contact;
    private final PrometheusMeterRegistry registry;
    private final NodeMetrics metrics;
    private final RocksDbStore store;
    // The clock the store judges expiry by; the test hook that makes the store lose a record needs it.
    private final ExpiryClock expiryClock;
    // The store as the node sees it: its writes, scans and batch reads run on a thread of their own.
    private final OffLoopStore offLoopStore;
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final EventLoopScheduler scheduler;
    private final NettyTransport transport;
    private final PeerServer peerServer;
    private final ClientGatewayServer clientGateway;
    private final HttpGateway httpGateway;
    private final ClientGuard clientGuard;
    private final Backend backend = new Backend();
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    // Futures handed out and not yet completed, completed on shutdown so that no caller waits on a dead loop.
    private final Set<CompletableFuture<Message>> outstandingReplies = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> outstandingCalls = ConcurrentHashMap.newKeySet();

    // Confined to the loop.
    private Node node;
    private boolean stopped;
    // Null unless the slow-node hook was asked for (InboundSlowness).
    private final InboundStall stall;
    private Cancellable metricsRefresh = Cancellable.NONE;
    private Cancellable readyWatch = Cancellable.NONE;
    private final long startNanos = System.nanoTime();
    private LoopLagProbe lagProbe;

    private RattanNode(NodeOptions options, Id id, UnaryOperator<Store> storeHook) throws IOException {
        this.options = options;
        String name = id.shortHex();
        Deque<AutoCloseable> opened = new ArrayDeque<>();
        try {
            // Expiry is judged by a clock that ignores wall-clock jumps and never goes back (ExpiryClock).
            ExpiryClock clock = new ExpiryClock(new SystemClock(), ExpiryClock.SKEW_BOUND_MILLIS);
            this.expiryClock = clock;
            this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            opened.push(registry::close);
            this.metrics = new NodeMetrics(registry).bindJvmMetrics();
            opened.push(metrics);
            // Durable actions (--fsync) come back from the sync thread to the loop, which exists by the first write.
            this.store = openStore(options.dataDir().resolve(STORE_DIR), clock, options.storage(),
                    this::executeOnLoop);
            opened.push(store);
            clock.attach(store);
            metrics.bindStore(store);
            this.group = EventLoops.newGroup(1, "rattan-" + name);
            opened.push(() -> shutDown(group));
            this.loop = group.next();
            this.scheduler = new EventLoopScheduler(loop);
            this.offLoopStore = new OffLoopStore(store, scheduler::execute, OffLoopStore.QUEUE_MAX, name);
            opened.push(offLoopStore);
            metrics.bindStoreThread(offLoopStore);
            this.stall = stallFor(options.inboundSlowness(), loop, id);
            MessageCodec codec = new MessageCodec();
            this.transport = new NettyTransport(loop, codec, name, metrics.peerTransport(),
                    options.limits().outboundConnectionsMax());
            opened.push(transport::halt);
            this.peerServer = new PeerServer(loop, new InetSocketAddress(options.host(), options.peerPort()), codec,
                    this::receive, name, transport, metrics.peerTransport(), options.limits());
            opened.push(peerServer);
            // One guard for both gateways: a client's rate and share are the same whichever protocol it speaks.
            this.clientGuard = new ClientGuard(options.limits(),
                    java.time.Duration.ofSeconds(options.config().ttlSecondsMax()), clock::epochMillis);
            metrics.bindClientGuard(clientGuard);
            this.clientGateway = new ClientGatewayServer(group,
                    new InetSocketAddress(options.host(), options.gatewayPort()), backend, codec,
                    ClientGatewayServer.IN_FLIGHT_MAX, metrics.clientTransport(), clientGuard,
                    options.limits().connections());
            opened.push(clientGateway);
            // The contact names the bound gateway port, so that one-hop clients can reach this node's gateway.
            this.contact = new Contact(id, new Address(options.host(), peerServer.localAddress().getPort()),
                    clientGateway.localAddress().getPort());
            transport.identity(contact);
            try {
                this.httpGateway = new HttpGateway(group, new InetSocketAddress(options.host(), options.httpPort()),
                        backend, clientGuard, options.limits().connections(), metrics.httpTransport());
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            opened.push(httpGateway);
            Transport peers = options.peerSendDelay().isZero() ? transport
                    : new DelayedTransport(scheduler, transport, options.peerSendDelay().toNanos());
            // A CSPRNG: request ids are drawn from it, and a stranger who could predict them could forge replies.
            NodeEnv env = new NodeEnv(clock, scheduler, peers, storeHook.apply(offLoopStore), newSecureRandom());
            startNode(env, options.config(), options.bootstrap());
        } catch (IOException | RuntimeException | Error e) {
            while (!opened.isEmpty()) {
                closeQuietly(opened.pop());
            }
            throw e;
        }
    }

    /**
     * Starts a node: creates {@code dataDir} when missing, loads the node id from {@code dataDir/node-id} (or draws
     * a new one and writes it), opens the store in {@code dataDir/store}, binds the three ports, and starts the
     * node, which joins through the bootstrap peers. Returns once the node has started; it may not have joined yet
     * (see {@link #isJoined}).
     *
     * @throws IOException when the data directory, the id or the store cannot be used, or a port cannot be bound;
     *                     everything opened so far is released
     */
    public static RattanNode start(NodeOptions options) throws IOException {
        return start(options, UnaryOperator.identity());
    }

    /**
     * Starts a node whose core reaches its store through {@code storeHook}'s wrapper of it: a test hook (a store
     * that blocks its thread on a latch, say), never set by the command line.
     */
    static RattanNode start(NodeOptions options, UnaryOperator<Store> storeHook) throws IOException {
        Files.createDirectories(options.dataDir());
        Id id = NodeIdFile.loadOrCreate(options.dataDir().resolve(NodeIdFile.FILE_NAME), new SecureRandom());
        RattanNode node = new RattanNode(options, id, storeHook);
        log.info("node {} started: peers on {}, clients on {}, http on {}, data in {}", node.contact,
                node.contact.address(), node.gatewayAddress(), node.httpAddress(), options.dataDir());
        return node;
    }

    /** This node as peers reach it: its id and its advertised peer address ({@code host:boundPeerPort}). */
    public Contact contact() {
        return contact;
    }

    /** The options this node was started with. */
    public NodeOptions options() {
        return options;
    }

    /** Where this node keeps its id and its store. */
    public Path dataDir() {
        return options.dataDir();
    }

    /** Where the binary client RPC listens. */
    public InetSocketAddress gatewayAddress() {
        return clientGateway.localAddress();
    }

    /** Where the HTTP/JSON gateway and {@code /metrics} listen. */
    public InetSocketAddress httpAddress() {
        return httpGateway.localAddress();
    }

    /** True until {@link #close} or {@link #halt} is called. */
    public boolean isRunning() {
        return state.get() == State.RUNNING;
    }

    /** A snapshot of the node, taken on its loop; waits up to 5 s. */
    public NodeStatus status() {
        if (loop.inEventLoop()) {
            return requireNode().status();
        }
        return await(call(Node::status), STATUS_TIMEOUT_MILLIS, "status");
    }

    /** True once the node has joined the overlay; false once it is closed or halted. Waits up to 5 s. */
    public boolean isJoined() {
        if (!isRunning()) {
            return false;
        }
        if (loop.inEventLoop()) {
            return !stopped && node != null && node.isJoined();
        }
        return await(call(Node::isJoined), STATUS_TIMEOUT_MILLIS, "isJoined");
    }

    /**
     * Runs {@code f} on the node's loop, with the node; for tests and tools. {@code f} must be quick and must not
     * block. Fails with {@link IllegalStateException} once the node is stopped.
     */
    public <T> CompletableFuture<T> call(Function<Node, T> f) {
        CompletableFuture<T> result = track(outstandingCalls, new CompletableFuture<>());
        boolean posted = post(() -> {
            if (node == null || stopped) {
                result.completeExceptionally(new IllegalStateException("node " + contact + " is not running"));
                return;
            }
            try {
                result.complete(f.apply(node));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        if (!posted) {
            result.completeExceptionally(new IllegalStateException("node " + contact + " is closed"));
        }
        return result;
    }

    /**
     * Sends {@code body} with request id {@code requestId} to the peer at {@code to} as this node, over its own
     * verified peer transport, on its loop; the node's state is not touched and it ignores any answer. For tests that
     * play a member of the overlay that misbehaves (a replica forging a remove from what it holds): what such a node
     * can send, with everything the handshake proves about it. Fails once the node is stopped. Package-private so
     * that the product does not publish it; tests in other packages reach it through the test sources'
     * {@code NodeTestHooks}.
     */
    CompletableFuture<Void> sendAsThisNode(Address to, long requestId, Message body) {
        return call(n -> {
            transport.send(to, new Envelope(contact, requestId, body));
            return null;
        });
    }

    /**
     * Every live record in this node's own store, in key order (the admin listing, {@code GET /admin/records}), read
     * on the store's thread, off the node's loop. Fails once the node is stopped.
     */
    public CompletableFuture<List<StoredRecord>> localRecords() {
        CompletableFuture<List<StoredRecord>> result = track(outstandingCalls, new CompletableFuture<>());
        boolean posted = post(() -> {
            if (stopped) {
                result.completeExceptionally(new IllegalStateException("node " + contact + " is not running"));
                return;
            }
            offLoopStore.submit(() -> allRecords(store), (all, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(all);
                }
            });
        });
        if (!posted) {
            result.completeExceptionally(new IllegalStateException("node " + contact + " is closed"));
        }
        return result;
    }

    /**
     * For tests: makes this node's own store lose the record under {@code (key, valueHash)}, as a lost write or a disk
     * restored from an old copy would, by overwriting it with a copy that expires a millisecond from now by the
     * store's clock: reads, scans and {@code GET /admin/records} stop seeing it then, and the purge deletes it. Sends
     * nothing. Completes with whether there was a record to lose; fails once the node is stopped. Package-private,
     * as {@link #sendAsThisNode} is.
     */
    CompletableFuture<Boolean> loseRecord(Id key, Bytes valueHash) {
        CompletableFuture<Boolean> result = track(outstandingCalls, new CompletableFuture<>());
        boolean posted = post(() -> {
            if (stopped) {
                result.completeExceptionally(new IllegalStateException("node " + contact + " is not running"));
                return;
            }
            try {
                Optional<StoredRecord> held = store.read(key, valueHash);
                held.ifPresent(r -> store.write(new StoredRecord(r.key(), r.valueHash(), r.value(),
                        expiryClock.epochMillis() + 1, r.binding(), r.secret(), r.tombstone())));
                result.complete(held.isPresent());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        if (!posted) {
            result.completeExceptionally(new IllegalStateException("node " + contact + " is closed"));
        }
        return result;
    }

    private static List<StoredRecord> allRecords(Store store) {
        List<StoredRecord> all = new ArrayList<>();
        Store.Cursor cursor = Store.Cursor.START;
        for (List<StoredRecord> page = store.scan(cursor, 4096); !page.isEmpty(); page = store.scan(cursor, 4096)) {
            all.addAll(page);
            StoredRecord last = page.get(page.size() - 1);
            cursor = new Store.Cursor(last.key(), last.valueHash());
        }
        return all;
    }

    /** The node's store thread: its queue and what it refused; for tests and metrics. */
    OffLoopStore offLoopStore() {
        return offLoopStore;
    }

    /** The node's store; for tests that change its space limit as an operator freeing space would. */
    RocksDbStore store() {
        return store;
    }

    /**
     * Reads the record (value or tombstone) this node's own store holds under {@code (key, valueHash)}, on the loop,
     * bypassing the overlay; for tests that count copies. Fails once the node is stopped.
     */
    public CompletableFuture<Optional<StoredRecord>> readStore(Id key, Bytes valueHash) {
        CompletableFuture<Optional<StoredRecord>> result = track(outstandingCalls, new CompletableFuture<>());
        boolean posted = post(() -> {
            if (stopped) {
                result.completeExceptionally(new IllegalStateException("node " + contact + " is not running"));
                return;
            }
            try {
                result.complete(store.read(key, valueHash));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        if (!posted) {
            result.completeExceptionally(new IllegalStateException("node " + contact + " is closed"));
        }
        return result;
    }

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} with this node as gateway, a get as
     * {@code options} say ({@link Node#handleClient}). Completes on the node's loop with the reply, or with
     * {@code ErrorReply(UNAVAILABLE)} when the node is not running; never exceptionally.
     */
    public CompletableFuture<Message> request(Message clientRequest, GetOptions options) {
        return serve(clientRequest, (n, reply) -> n.handleClient(clientRequest, options, reply));
    }

    /** As the binary RPC serves it: a get with the options its own fields name ({@link GatewayBackend#request}). */
    public CompletableFuture<Message> request(Message clientRequest) {
        return backend.request(clientRequest);
    }

    /** Runs {@code serve} on the loop with the node and the reply's completer; turns a node failure into INTERNAL. */
    private CompletableFuture<Message> serve(Message clientRequest, BiConsumer<Node, Consumer<Message>> serve) {
        CompletableFuture<Message> reply = track(outstandingReplies, new CompletableFuture<>());
        boolean posted = post(() -> handle(() -> {
            if (node == null || stopped) {
                reply.complete(notRunning());
                return;
            }
            try {
                serve.accept(node, reply::complete);
            } catch (RuntimeException e) {
                log.error("{}: node failed on a client {}", contact, clientRequest.type(), e);
                reply.complete(new ErrorReply(Status.INTERNAL, "the node failed on this request"));
            }
        }));
        if (!posted) {
            reply.complete(notRunning());
        }
        return reply;
    }

    /**
     * Refusals of one kind on one port so far: connections over a bound, frames or requests over a rate, idle
     * connections and frames past their deadline closed (see {@link io.rattan.node.limits.Limits}).
     */
    public long refusals(io.rattan.node.limits.Port port, io.rattan.node.netty.TransportListener.Refusal refusal) {
        switch (port) {
            case PEER:
                return peerServer.refusals(refusal);
            case GATEWAY:
                return clientGateway.refusals(refusal);
            default:
                return httpGateway.refusals(refusal);
        }
    }

    /** Connections open now on one port. */
    public int connectionCount(io.rattan.node.limits.Port port) {
        switch (port) {
            case PEER:
                return peerServer.connectionCount();
            case GATEWAY:
                return clientGateway.connectionCount();
            default:
                return httpGateway.connectionCount();
        }
    }

    /** The most bytes of unread HTTP answers waiting on any one connection now. */
    public long httpPendingWriteBytesMax() {
        return httpGateway.pendingWriteBytesMax();
    }

    /** The client limits both gateways share: their refusal counts and the sources they track. */
    public ClientGuard clientGuard() {
        return clientGuard;
    }

    /** Frames the peer port decoded and handed to the node (not those dropped over a rate). */
    public long peerFramesReceived() {
        return peerServer.framesReceived();
    }

    /** Peer frames the handshake rules kept from the node: unverified or forged senders, bad hellos or answers. */
    public long peerFramesRefused() {
        return peerServer.framesRefused();
    }

    /** Senders whose frame rate the peer port tracks now: verified peers by id, strangers by IP; bounded. */
    public long peersRateTracked() {
        return peerServer.peersRateTracked();
    }

    /** Verified peers (by node id) whose frame rate the peer port tracks now; bounded. */
    public long verifiedPeersRateTracked() {
        return peerServer.verifiedPeersRateTracked();
    }

    /** Outbound peer connections closed to stay within {@link io.rattan.node.limits.Limits#outboundConnectionsMax}. */
    public long outboundConnectionsEvicted() {
        return transport.connectionsEvicted();
    }

    /** This node's metrics. */
    public PrometheusMeterRegistry meterRegistry() {
        return registry;
    }

    /** Frames the transport tried to write after {@link #halt} began. A halt sends nothing: this must stay 0. */
    public long framesSentAfterHalt() {
        return transport.framesSentAfterHalt();
    }

    /**
     * Leaves gracefully: the node hands its values to the nodes that become their replicas (waiting up to 10 s for
     * that), then stops; then the servers, the transport and the loop shut down, and the store is closed last.
     * Idempotent; does nothing after {@link #halt}. Must not be called on the node's loop.
     */
    @Override
    public void close() {
        requireOffLoop("close");
        if (!state.compareAndSet(State.RUNNING, State.CLOSING)) {
            return;
        }
        CompletableFuture<Void> left = new CompletableFuture<>();
        boolean posted = post(() -> {
            if (node == null || stopped) {
                left.complete(null);
                return;
            }
            try {
                node.leave(() -> left.complete(null));
            } catch (RuntimeException e) {
                left.completeExceptionally(e);
            }
        });
        if (posted) {
            try {
                left.get(LEAVE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn("{}: leave did not finish within {} ms; stopping anyway", contact, LEAVE_TIMEOUT_MILLIS);
            } catch (ExecutionException e) {
                log.warn("{}: leave failed; stopping anyway", contact, e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        runOnLoop(this::stopNode);
        closeQuietly(httpGateway);
        closeQuietly(clientGateway);
        closeQuietly(peerServer);
        transport.close();
        releaseAfterLoop();
        state.set(State.CLOSED);
        log.info("node {} closed", contact);
    }

    /**
     * Kills the node in-process, as SIGKILL would: from this call on the node sends nothing (see
     * {@link #framesSentAfterHalt}); it stops, its connections and servers close, its loop shuts down and its store
     * is closed, with nothing handed off. Idempotent; does nothing after {@link #close}. Must not be called on the
     * node's loop.
     */
    public void halt() {
        requireOffLoop("halt");
        if (!state.compareAndSet(State.RUNNING, State.HALTED)) {
            return;
        }
        // The transport refuses every write from here on, before the node gets another chance to send.
        transport.halt();
        runOnLoop(this::stopNode);
        closeQuietly(httpGateway);
        closeQuietly(clientGateway);
        closeQuietly(peerServer);
        releaseAfterLoop();
        if (transport.framesSentAfterHalt() != 0) {
            log.error("{}: {} frames reached a socket after halt", contact, transport.framesSentAfterHalt());
        }
        log.info("node {} halted", contact);
    }

    @Override
    public String toString() {
        return "RattanNode[" + contact + "]";
    }

    private void startNode(NodeEnv env, NodeConfig config, List<Address> bootstrap) throws IOException {
        CompletableFuture<Void> started = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                node = new Node(config, contact, env, metrics);
                node.start(bootstrap);
                metricsRefresh = scheduler.schedule(0, this::refreshMetrics);
                readyWatch = scheduler.schedule(0, this::watchReady);
                lagProbe = new LoopLagProbe(loop, registry);
                lagProbe.start();
                started.complete(null);
            } catch (RuntimeException | Error e) {
                stopped = true;
                started.completeExceptionally(e);
            }
        });
        try {
            started.get(START_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException("node " + contact + " failed to start", cause);
        } catch (TimeoutException e) {
            throw new IOException("node " + contact + " did not start within " + START_TIMEOUT_MILLIS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting node " + contact, e);
        }
    }

    /** A frame from a peer, on the loop. Frames that arrive before the node exists or after it stopped are dropped. */
    private void receive(Envelope envelope) {
        handle(() -> {
            if (node != null && !stopped) {
                node.receive(envelope);
            }
        });
    }

    /** Runs one input of the node (on the loop): at once, or as the slow-node hook says when it is armed. */
    private void handle(Runnable input) {
        if (stall == null) {
            input.run();
        } else {
            stall.submit(input);
        }
    }

    private void refreshMetrics() {
        if (node == null || stopped) {
            return;
        }
        try {
            // A faulted store is probed here, so the node becomes ready again once space returns, with no restart.
            store.probe();
            metrics.update(node.status());
        } catch (RuntimeException e) {
            log.warn("{}: cannot refresh metrics from the node status", contact, e);
        }
        metricsRefresh = scheduler.schedule(METRICS_REFRESH_NANOS, this::refreshMetrics);
    }

    /**
     * On the loop, until the node is first ready: then logs and exports how long it took from this node's start
     * and from the process's (JVM boot, class loading and any warm-up included), which is what a cold start costs.
     */
    private void watchReady() {
        if (node == null || stopped) {
            return;
        }
        if (!node.isReady()) {
            readyWatch = scheduler.schedule(READY_POLL_NANOS, this::watchReady);
            return;
        }
        long sinceStart = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        long sinceProcess = ProcessHandle.current().info().startInstant()
                .map(t -> System.currentTimeMillis() - t.toEpochMilli()).orElse(-1L);
        metrics.ready(sinceStart, sinceProcess);
        log.info("node {} ready: {} ms after the node's start, {} ms after the process's", contact, sinceStart,
                sinceProcess);
    }

    /** On the loop: stops the node and its timers; afterwards every input is dropped. */
    private void stopNode() {
        if (stopped) {
            return;
        }
        stopped = true;
        metricsRefresh.cancel();
        readyWatch.cancel();
        if (lagProbe != null) {
            lagProbe.stop();
        }
        if (node != null) {
            try {
                node.stop();
            } catch (RuntimeException e) {
                log.warn("{}: node failed to stop cleanly", contact, e);
            }
        }
    }

    /**
     * Shuts the loop down, then closes what only the loop used: the store thread, then the store last, once no task
     * can touch it (a store thread that does not stop leaves the store open rather than free it under a task).
     */
    private void releaseAfterLoop() {
        shutDown(group);
        if (offLoopStore.closeAndWait()) {
            closeQuietly(store);
        }
        // request() promises a reply, never an exception; call() fails.
        for (CompletableFuture<Message> f : outstandingReplies) {
            f.complete(notRunning());
        }
        for (CompletableFuture<?> f : outstandingCalls) {
            f.completeExceptionally(new IllegalStateException("node " + contact + " stopped"));
        }
        closeQuietly(metrics);
        closeQuietly(registry::close);
    }

    private static <F extends CompletableFuture<?>> F track(Set<? super F> outstanding, F f) {
        outstanding.add(f);
        f.whenComplete((v, e) -> outstanding.remove(f));
        return f;
    }

    /** Posts {@code task} to the loop; false when the loop no longer takes tasks. */
    private boolean post(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Runs {@code task} on the loop and waits for it (bounded); returns at once if the loop is gone. */
    private void runOnLoop(Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!post(() -> {
            try {
                task.run();
            } finally {
                done.complete(null);
            }
        })) {
            return;
        }
        try {
            done.get(STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.warn("{}: loop task did not finish: {}", contact, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Node requireNode() {
        if (node == null || stopped) {
            throw new IllegalStateException("node " + contact + " is not running");
        }
        return node;
    }

    private void requireOffLoop(String what) {
        if (loop.inEventLoop()) {
            throw new IllegalStateException(what + " blocks, so it must not be called on the node's loop");
        }
    }

    private <T> T await(CompletableFuture<T> f, long timeoutMillis, String what) {
        try {
            return f.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(what + " failed on node " + contact, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("node " + contact + " did not answer " + what + " within "
                    + timeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    private static ErrorReply notRunning() {
        return new ErrorReply(Status.UNAVAILABLE, "node is not running");
    }

    /** Hands a task to the loop; used by the store's sync thread, which starts only after the loop exists. */
    private void executeOnLoop(Runnable task) {
        loop.execute(task);
    }

    private static RocksDbStore openStore(Path dir, ExpiryClock clock, RocksDbStore.Settings settings,
                                          Executor loop) throws IOException {
        try {
            return RocksDbStore.open(dir, clock::epochMillis, settings, loop);
        } catch (StoreException e) {
            throw new IOException("cannot open the store in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void shutDown(EventLoopGroup group) {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS)
                .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static InboundStall stallFor(InboundSlowness slowness, EventLoop loop, Id id) {
        if (slowness.isOff()) {
            return null;
        }
        long now = System.nanoTime();
        long armedAt = slowness.armedAtEpochMillis() < 0 ? now
                : now + TimeUnit.MILLISECONDS.toNanos(slowness.armedAtEpochMillis() - System.currentTimeMillis());
        log.info("node {}: slow-node hook armed with {} periods", id.shortHex(), slowness.periods().size());
        // Its own draws, so that the hook does not shift the node's.
        return new InboundStall(slowness.periods(), armedAt, loop, new SplittableRandom(~seedOf(id)));
    }

    private static SecureRandom newSecureRandom() {
        try {
            // DRBG draws from the OS once and then stays in user space: no system call per request id.
            return SecureRandom.getInstance("DRBG");
        } catch (java.security.NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    /** Spreads the id's bits into one seed, so that each node draws its own random sequence, and the same one again. */
    static long seedOf(Id id) {
        return id.hi() ^ Long.rotateLeft(id.mid(), 21) ^ (id.lo() * 0x9E37_79B9_7F4A_7C15L);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("failed to close {}", c, e);
        }
    }

    /** The gateways' view of this node. */
    private final class Backend implements GatewayBackend {

        @Override
        public CompletableFuture<Message> request(Message clientRequest, GetOptions options) {
            return RattanNode.this.request(clientRequest, options);
        }

        @Override
        public CompletableFuture<NodeStatus> status() {
            return call(Node::status);
        }

        @Override
        public CompletableFuture<List<StoredRecord>> localRecords() {
            return RattanNode.this.localRecords();
        }

        @Override
        public Optional<String> storageFault() {
            StoreException.Kind fault = store.fault();
            return fault == null ? Optional.empty() : Optional.of(fault.name());
        }

        @Override
        public String scrapeMetrics() {
            return registry.scrape();
        }

        @Override
        public NodeConfig config() {
            return options.config();
        }
    }
}
