package io.rattan.node;

import com.google.common.net.InetAddresses;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.env.RequestIds;
import io.rattan.core.env.Scheduler;
import io.rattan.core.env.Transport;
import io.rattan.core.id.NodeKey;
import io.rattan.core.net.Contact;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.binary.ClientGatewayServer;
import io.rattan.node.gateway.http.HttpAccess;
import io.rattan.node.gateway.http.HttpGateway;
import io.rattan.node.gateway.http.HttpSurfaces;
import io.rattan.node.gateway.permanent.PermanentValues;
import io.rattan.node.netty.EventLoops;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.store.NamespaceDirs;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.ClientAccessFiles;
import io.rattan.node.tls.PeerTls;
import io.rattan.node.tls.ServerTls;
import io.rattan.node.transport.DelayedTransport;
import io.rattan.node.transport.NettyTransport;
import io.rattan.node.transport.PeerDelays;
import io.rattan.node.transport.PeerServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one running node is made of (its metrics, store, loop, transport and the three servers, and the objects that
 * reach the core node on its loop), opened in the order they depend on each other, and released in the order that
 * lets nothing touch what is already closed. It exists so that this order, and the rule that a node that fails to
 * start releases everything opened so far, live in one place, apart from what {@link RattanNode} offers its callers.
 *
 * <p>Everything that a peer or a client can reach exists before the port it comes in through is bound: the core node
 * behind them drops or refuses what arrives before it has started.
 */
final class NodeParts {

    static final long SHUTDOWN_TIMEOUT_MILLIS = 10_000;

    // RattanNode's logger: its lines keep the name operators and log filters know them by.
    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    // Expiry is judged by a clock that ignores wall-clock jumps and never goes back (ExpiryClock).
    final ExpiryClock clock = new ExpiryClock(new SystemClock(), ExpiryClock.SKEW_BOUND_MILLIS);
    final PrometheusMeterRegistry registry;
    final NodeMetrics metrics;
    final RocksDbStore store;
    final EventLoopGroup group;
    final EventLoop loop;
    final EventLoopScheduler scheduler;
    // The slow-node hook, or null when it is off.
    private final InboundStall stall;
    final LoopGate gate;
    // The store as the node sees it: its writes, scans and batch reads run on a thread of their own.
    final OffLoopStore offLoopStore;
    final NamespaceDirs namespaceDirs;
    final NodeOnLoop nodeOnLoop;
    final OwnStore ownStore;
    final GatewayBackend backend;
    final NettyTransport transport;
    final PeerServer peerServer;
    final ClientGuard clientGuard;
    final ClientGatewayServer clientGateway;
    final Contact contact;
    /** The node's key pair: it proves the id in handshakes and signs the puts this node is the gateway of. */
    private final NodeKey key;
    /** The values the HTTP gateway keeps alive ({@code ?permanent=true}), listed in the data directory. */
    final PermanentValues permanent;
    final HttpGateway httpGateway;
    /** The admin port's listener; null when the node has none. */
    final HttpGateway adminGateway;
    // What is open so far, last opened first; all of it is closed if the node fails to start.
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    // Re-reads TLS and token files; null until one needs it.
    private ScheduledExecutorService reloads;
    /** Resolves the bootstrap names until the node has joined; null when none was given. */
    private volatile BootstrapResolver resolver;

    /** Opens everything and binds the three ports; on failure releases what it opened and throws. */
    NodeParts(NodeOptions options, NodeKey key) throws IOException {
        this.key = key;
        Id id = key.id();
        String name = id.shortHex();
        try {
            this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            opened.push(registry::close);
            this.metrics = new NodeMetrics(registry).bindJvmMetrics();
            opened.push(metrics);
            // Durable actions (--fsync) come back from the sync thread to the loop, which exists by the first write.
            this.store = openStore(options.dataDir().resolve(RattanNode.STORE_DIR), clock, options.storage(),
                    this::executeOnLoop);
            opened.push(store);
            clock.attach(store);
            metrics.bindStore(store);
            this.group = EventLoops.newGroup(1, "rattan-" + name);
            opened.push(() -> shutDown(group));
            this.loop = group.next();
            this.scheduler = new EventLoopScheduler(loop);
            this.gate = new LoopGate(loop, this::contact);
            this.offLoopStore = new OffLoopStore(store, scheduler::execute, OffLoopStore.QUEUE_MAX, name);
            opened.push(offLoopStore);
            metrics.bindStoreThread(offLoopStore);
            this.namespaceDirs = new NamespaceDirs(options.dataDir().resolve(RattanNode.NAMESPACES_DIR),
                    clock::epochMillis, options.storage(), scheduler::execute, name);
            opened.push(namespaceDirs);
            this.stall = stallFor(options.inboundSlowness(), loop, id);
            this.nodeOnLoop = new NodeOnLoop(loop, gate, stall, this::contact);
            this.ownStore = new OwnStore(gate, nodeOnLoop::running, store, offLoopStore, clock, options.dataDir());
            this.backend = new NodeBackend(nodeOnLoop, ownStore, store, registry, options.config());
            MessageCodec codec = MessageCodec.speaking(options.config().protocolVersion());
            this.transport = openTransport(options, codec, key, name);
            transport.onRefused(nodeOnLoop::peerRefused);
            metrics.bindProtocol(codec.version(), transport::peersSpeakingOlder);
            this.peerServer = new PeerServer(loop, new InetSocketAddress(options.bind(), options.peerPort()), codec,
                    nodeOnLoop::receive, name, transport, metrics.peerTransport(), options.limits());
            opened.push(peerServer);
            // One guard for both gateways: a client's rate and share are the same whichever protocol it speaks.
            this.clientGuard = new ClientGuard(options.limits(),
                    java.time.Duration.ofSeconds(options.config().ttlSecondsMax()), clock::epochMillis);
            metrics.bindClientGuard(clientGuard);
            HttpAccess access = openClientAccess(options, name);
            this.clientGateway = new ClientGatewayServer(group,
                    new InetSocketAddress(options.bind(), options.gatewayPort()), backend, codec,
                    ClientGatewayServer.IN_FLIGHT_MAX, metrics.clientTransport(), clientGuard,
                    options.limits().connections(), options.limits().watchesPerConnectionMax(), access.tls());
            opened.push(clientGateway);
            // The contact names the bound gateway port, so that one-hop clients can reach this node's gateway.
            this.contact = new Contact(id, new Address(options.host(), peerServer.localAddress().getPort()),
                    clientGateway.localAddress().getPort());
            transport.identity(contact, key);
            this.permanent = PermanentValues.open(backend, options.dataDir().resolve(RattanNode.PERMANENT_DIR),
                    registry, name);
            opened.push(permanent);
            this.httpGateway = bindHttp(group, options, backend, clientGuard, metrics, permanent, access);
            opened.push(httpGateway);
            this.adminGateway = bindAdmin(group, options, backend);
        } catch (IOException | RuntimeException | Error e) {
            closeOpened();
            throw e;
        }
    }

    /**
     * The peer transport, which refuses peers that cannot prove their ids unless told not to, and runs TLS on its
     * connections when the options name the files, checked for changes every {@link PeerTls#RELOAD_SECONDS} s.
     */
    private NettyTransport openTransport(NodeOptions options, MessageCodec codec, NodeKey key, String name)
            throws IOException {
        NettyTransport t = new NettyTransport(loop, codec, name, metrics.peerTransport(),
                options.limits().outboundConnectionsMax());
        opened.push(t::halt);
        if (options.limits().idProofRequired()) {
            t.requireIdProofs();
        }
        if (options.tls() != null) {
            PeerTls tls = PeerTls.open(options.tls(), key, loop, name);
            t.tls(tls);
            metrics.bindPeerTls(tls);
            reloadEvery(tls::reloadIfChanged, name);
        }
        return t;
    }

    /**
     * Runs {@code reload} every {@link PeerTls#RELOAD_SECONDS} s until the node closes, on a thread of its own: it
     * reads files, and a new certificate's contexts take milliseconds the loop must not wait for.
     */
    private void reloadEvery(Runnable reload, String name) {
        if (reloads == null) {
            reloads = Executors.newSingleThreadScheduledExecutor(new ThreadFactoryBuilder().setDaemon(true)
                    .setNameFormat("rattan-reload-" + name).build());
            ScheduledExecutorService started = reloads;
            opened.push(started::shutdownNow);
        }
        reloads.scheduleWithFixedDelay(() -> {
            try {
                reload.run();
            } catch (RuntimeException e) {
                log.warn("reloading TLS or token files failed", e);
            }
        }, PeerTls.RELOAD_SECONDS, PeerTls.RELOAD_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Starts the core node on the loop, reaching its store through {@code storeHook}'s wrapper of it and sending to
     * its peers through {@code transportHook}'s wrapper of its transport, with the timers that keep its metrics
     * current; on failure releases everything and throws.
     */
    void startNode(NodeOptions options, UnaryOperator<Store> storeHook, UnaryOperator<Transport> transportHook,
                   long startNanos) throws IOException {
        try {
            Transport peers = transportHook.apply(delayed(options.peerDelays()));
            // A CSPRNG: request ids are drawn from it, and a stranger who could predict them could forge replies.
            Scheduler timers = stall == null ? scheduler : new StalledTimers(scheduler, stall);
            NodeEnv env = new NodeEnv(clock, timers, peers, storeHook.apply(offLoopStore), newSecureRandom(),
                    RequestIds.FROM_NODE_RANDOM, namespaceDirs, key);
            List<Address> bootstrap = options.bootstrap();
            boolean named = BootstrapResolver.namesAHost(bootstrap);
            nodeOnLoop.start(options.config(), env, metrics, named ? BootstrapResolver.literals(bootstrap) : bootstrap,
                    named, new MetricsRefresh(scheduler, loop, registry, metrics, store, contact, nodeOnLoop::live,
                            startNanos));
            if (named) {
                // It ends once the node has joined or stopped; closeServers stops it at once.
                resolver = BootstrapResolver.start(bootstrap, contact.address(), BootstrapResolver.SYSTEM,
                        nodeOnLoop::call);
            }
        } catch (IOException | RuntimeException | Error e) {
            closeOpened();
            throw e;
        }
    }

    /**
     * Closes the servers: the HTTP gateway, the admin port, the client gateway, the peer server; and stops resolving
     * bootstrap names and re-reading TLS and token files.
     */
    void closeServers() {
        if (resolver != null) {
            resolver.stop();
        }
        if (reloads != null) {
            reloads.shutdownNow();
        }
        closeQuietly(httpGateway);
        closeQuietly(permanent);
        if (adminGateway != null) {
            closeQuietly(adminGateway);
        }
        closeQuietly(clientGateway);
        closeQuietly(peerServer);
    }

    /**
     * Shuts the loop down, then closes what only the loop used: the store thread, then the store last, once no task
     * can touch it (a store thread that does not stop leaves the store open rather than free it under a task). Then
     * completes what callers still wait on, and closes the metrics.
     */
    void releaseAfterLoop() {
        shutDown(group);
        closeQuietly(namespaceDirs);
        if (offLoopStore.closeAndWait()) {
            closeQuietly(store);
        }
        // request() promises a reply, never an exception; call() fails.
        gate.failOutstanding(NodeOnLoop::notRunning);
        closeQuietly(metrics);
        closeQuietly(registry::close);
    }

    /** The transport behind the peer delays, if any: without them a frame costs no extra step. */
    private Transport delayed(PeerDelays delays) {
        if (delays == PeerDelays.NONE) {
            return transport;
        }
        log.info("node {}: peer frames delayed ({})", contact.id().shortHex(), delays);
        return new DelayedTransport(scheduler, clock, transport, delays);
    }

    private Contact contact() {
        return contact;
    }

    private void closeOpened() {
        while (!opened.isEmpty()) {
            closeQuietly(opened.pop());
        }
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

    /** TLS on the client ports and tokens on HTTP, as the options say, their files checked for changes. */
    private HttpAccess openClientAccess(NodeOptions options, String name) throws IOException {
        ClientAccessFiles files = options.clientAccess();
        ServerTls tls = files.cert() == null ? null : ServerTls.open(files.cert(), files.key(), files.clientCa(), name);
        BearerTokens tokens = files.tokens() == null ? null : BearerTokens.open(files.tokens(), name);
        if (tls != null) {
            reloadEvery(tls::reloadIfChanged, name);
        }
        if (tokens != null) {
            metrics.bindTokens(tokens);
            reloadEvery(tokens::reloadIfChanged, name);
            if (tls == null) {
                log.warn("{}: --http-tokens without --client-tls-cert: tokens cross the network in clear", name);
            }
        }
        if (files.clientCa() == null && !InetAddresses.forString(options.bind()).isLoopbackAddress()
                && (tokens != null || tls != null)) {
            log.warn("{}: the binary gateway takes no tokens and, without --client-ca, no client certificates: "
                    + "whoever reaches port {} on {} uses the key API", name, options.gatewayPort(), options.bind());
        }
        return new HttpAccess(tls, tokens);
    }

    /** The HTTP gateway, bound; a port it cannot bind is the {@link IOException} inside its unchecked one. */
    private static HttpGateway bindHttp(EventLoopGroup group, NodeOptions options, GatewayBackend backend,
                                        ClientGuard guard, NodeMetrics metrics, PermanentValues permanent,
                                        HttpAccess access) throws IOException {
        try {
            return new HttpGateway(group, new InetSocketAddress(options.bind(), options.httpPort()), backend, guard,
                    options.limits().connections(), metrics.httpTransport(), options.operator().httpServes(),
                    permanent, access);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The admin port, bound, or null when the node has none: the operator endpoints, unmetered (whoever reaches it is
     * trusted; it listens on loopback unless told otherwise) and uncounted in the client port's transport metrics.
     * Pushed on what is opened, so that a failure later closes it.
     */
    private HttpGateway bindAdmin(EventLoopGroup group, NodeOptions options, GatewayBackend backend)
            throws IOException {
        OperatorEndpoints o = options.operator();
        if (!o.hasAdminPort()) {
            return null;
        }
        try {
            HttpGateway admin = new HttpGateway(group, new InetSocketAddress(o.adminBind(), o.adminPort()), backend,
                    ClientGuard.none(), options.limits().connections(), TransportListener.NONE, HttpSurfaces.ADMIN,
                    null, HttpAccess.OPEN);
            opened.push(admin);
            return admin;
        } catch (UncheckedIOException e) {
            throw e.getCause();
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
        return new InboundStall(slowness.periods(), armedAt, loop, new SplittableRandom(~RattanNode.seedOf(id)));
    }

    private static SecureRandom newSecureRandom() {
        try {
            // DRBG draws from the OS once and then stays in user space: no system call per request id.
            return SecureRandom.getInstance("DRBG");
        } catch (java.security.NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("failed to close {}", c, e);
        }
    }
}
