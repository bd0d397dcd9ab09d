package io.rattan.node;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.env.Transport;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
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
 *
 * <p>This class is the node's public face and its close/halt state; the work is done by package-private parts:
 * {@code NodeParts} opens and releases everything in order, {@code NodeOnLoop} holds the core node on its loop,
 * {@code LoopGate} carries calls from other threads to the loop, {@code OwnStore} reads the node's own store (the
 * admin listing), {@code MetricsRefresh} keeps the gauges current, and {@code NodeBackend} is the gateways' view.
 */
public final class RattanNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    static final long STATUS_TIMEOUT_MILLIS = 5_000;
    // How often a node not joined yet looks whether the cluster refused it.
    private static final long JOIN_POLL_MILLIS = 200;
    static final long LEAVE_TIMEOUT_MILLIS = 10_000;
    static final String STORE_DIR = "store";
    /** Where the HTTP gateway lists the values it keeps alive ({@code ?permanent=true}). */
    static final String PERMANENT_DIR = "permanent";
    /** The data directory's namespaces: their definitions and their stores ({@code NamespaceDirs}). */
    static final String NAMESPACES_DIR = "namespaces";

    private enum State { RUNNING, CLOSING, CLOSED, HALTED }

    private final NodeOptions options;
    private final NodeParts parts;
    private final Contact contact;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final long startNanos = System.nanoTime();

    private RattanNode(NodeOptions options, NodeKey key, UnaryOperator<Store> storeHook,
                       UnaryOperator<Transport> transportHook) throws IOException {
        this.options = options;
        this.parts = new NodeParts(options, key);
        this.contact = parts.contact;
        parts.startNode(options, storeHook, transportHook, startNanos);
    }

    /**
     * Starts a node: creates {@code dataDir} when missing, loads the node's key from {@code dataDir/node.key} (or
     * draws a new one and writes it; the node id is its public key's SHA-1), opens the store in
     * {@code dataDir/store}, binds the three ports, and starts the node, which joins through the bootstrap peers.
     * Returns once the node has started; it may not have joined yet (see {@link #isJoined}).
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
        return start(options, storeHook, UnaryOperator.identity());
    }

    /**
     * Starts a node whose core sends to its peers through {@code transportHook}'s wrapper of its transport (and reaches
     * its store through {@code storeHook}'s): a test hook (a transport that loses what it sends to some peers, as a
     * one-way cut would), never set by the command line.
     */
    static RattanNode start(NodeOptions options, UnaryOperator<Store> storeHook,
                            UnaryOperator<Transport> transportHook) throws IOException {
        Files.createDirectories(options.dataDir());
        NodeKey key = NodeKeyFile.loadOrCreate(options.dataDir(), new SecureRandom());
        RattanNode node = new RattanNode(options, key, storeHook, transportHook);
        log.info("node {} started: peers on {}, clients on {}, http on {} (serving {}), admin on {}, data in {}",
                node.contact, node.contact.address(), node.gatewayAddress(), node.httpAddress(),
                options.operator().httpServes().operatorList(),
                node.adminAddress() == null ? "no port" : node.adminAddress(), options.dataDir());
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
        return parts.clientGateway.localAddress();
    }

    /** Where the HTTP/JSON gateway and {@code /metrics} listen. */
    public InetSocketAddress httpAddress() {
        return parts.httpGateway.localAddress();
    }

    /** Where the admin port listens; null when the node has none ({@link OperatorEndpoints}). */
    public InetSocketAddress adminAddress() {
        return parts.adminGateway == null ? null : parts.adminGateway.localAddress();
    }

    /** True until {@link #close} or {@link #halt} is called. */
    public boolean isRunning() {
        return state.get() == State.RUNNING;
    }

    /** A snapshot of the node, taken on its loop; waits up to 5 s. */
    public NodeStatus status() {
        if (parts.loop.inEventLoop()) {
            return parts.nodeOnLoop.require().status();
        }
        return parts.gate.await(call(Node::status), STATUS_TIMEOUT_MILLIS, "status");
    }

    /** True once the node has joined the overlay; false once it is closed or halted. Waits up to 5 s. */
    public boolean isJoined() {
        if (!isRunning()) {
            return false;
        }
        if (parts.loop.inEventLoop()) {
            Node n = parts.nodeOnLoop.live();
            return n != null && n.isJoined();
        }
        return parts.gate.await(call(Node::isJoined), STATUS_TIMEOUT_MILLIS, "isJoined");
    }

    /**
     * Completes with the reason when the cluster refused this node's join, its k, W or value limits differing from
     * the cluster's (docs/deploy.md, "Forming a cluster"); never for a node that joined or founded the overlay. The
     * node keeps running, unready: its command ends it.
     */
    public CompletableFuture<String> joinRefused() {
        CompletableFuture<String> refused = new CompletableFuture<>();
        AtomicReference<ScheduledFuture<?>> poll = new AtomicReference<>();
        poll.set(parts.loop.scheduleAtFixedRate(() -> {
            try {
                Node n = parts.nodeOnLoop.live();
                String why = n == null || n.isJoined() ? null : n.status().joinRefusal();
                if (why != null) {
                    refused.complete(why);
                }
                if (n == null || n.isJoined() || why != null) {
                    cancel(poll.get());
                }
            } catch (RuntimeException e) {
                // A failed look ends the polling: say so, rather than leave the caller waiting for ever.
                refused.completeExceptionally(e);
                cancel(poll.get());
            }
        }, JOIN_POLL_MILLIS, JOIN_POLL_MILLIS, TimeUnit.MILLISECONDS));
        return refused;
    }

    private static void cancel(ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }

    /**
     * Runs {@code f} on the node's loop, with the node; for tests and tools. {@code f} must be quick and must not
     * block. Fails with {@link IllegalStateException} once the node is stopped.
     */
    public <T> CompletableFuture<T> call(Function<Node, T> f) {
        return parts.nodeOnLoop.call(f);
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
            parts.transport.send(to, new Envelope(contact, requestId, body));
            return null;
        });
    }

    /**
     * Every live record in this node's own store, in key order (the admin listing, {@code GET /admin/records}), read
     * on the store's thread, off the node's loop. Fails once the node is stopped.
     */
    public CompletableFuture<List<StoredRecord>> localRecords() {
        return parts.ownStore.records();
    }

    /**
     * For tests: makes this node's own store lose the record in {@code slot} under {@code key}, as a lost write or a
     * disk restored from an old copy would, by overwriting it with a copy that expires a millisecond from now by the
     * store's clock: reads, scans and {@code GET /admin/records} stop seeing it then, and the purge deletes it. Sends
     * nothing. Completes with whether there was a record to lose; fails once the node is stopped. Package-private,
     * as {@link #sendAsThisNode} is.
     */
    CompletableFuture<Boolean> loseRecord(Id key, Bytes slot) {
        return parts.ownStore.lose(key, slot);
    }

    /** The node's store thread: its queue and what it refused; for tests and metrics. */
    OffLoopStore offLoopStore() {
        return parts.offLoopStore;
    }

    /** The node's store; for tests that change its space limit as an operator freeing space would. */
    RocksDbStore store() {
        return parts.store;
    }

    /**
     * Reads the record (value or tombstone) this node's own store holds in {@code slot} under {@code key} (the value
     * hash, or for a value a client put with a secret {@code SecretBinding.slotFor}), on the loop, bypassing the
     * overlay; for tests that count copies. Fails once the node is stopped.
     */
    public CompletableFuture<Optional<StoredRecord>> readStore(Id key, Bytes slot) {
        return parts.ownStore.read(key, slot);
    }

    /**
     * Serves a {@code ClientPut}, {@code ClientGet} or {@code ClientRemove} with this node as gateway, as its gateways
     * do ({@link GatewayBackend#request}): a get as its options say. Completes on the node's loop with the reply, with
     * the refusal of a request outside the node's limits, or with {@code ErrorReply(UNAVAILABLE)} when the node is not
     * running; never exceptionally.
     */
    public CompletableFuture<Message> request(Message clientRequest) {
        return parts.backend.request(clientRequest);
    }

    /**
     * Refusals of one kind on one port so far: connections over a bound, frames or requests over a rate, idle
     * connections and frames past their deadline closed (see {@link io.rattan.node.limits.Limits}).
     */
    public long refusals(io.rattan.node.limits.Port port, io.rattan.node.netty.TransportListener.Refusal refusal) {
        return switch (port) {
            case PEER -> parts.peerServer.refusals(refusal);
            case GATEWAY -> parts.clientGateway.refusals(refusal);
            case HTTP -> parts.httpGateway.refusals(refusal);
        };
    }

    /** Connections open now on one port. */
    public int connectionCount(io.rattan.node.limits.Port port) {
        return switch (port) {
            case PEER -> parts.peerServer.connectionCount();
            case GATEWAY -> parts.clientGateway.connectionCount();
            case HTTP -> parts.httpGateway.connectionCount();
        };
    }

    /** The most bytes of unread HTTP answers waiting on any one connection now. */
    public long httpPendingWriteBytesMax() {
        return parts.httpGateway.pendingWriteBytesMax();
    }

    /** The client limits both gateways share: their refusal counts and the sources they track. */
    public ClientGuard clientGuard() {
        return parts.clientGuard;
    }

    /** Frames the peer port decoded and handed to the node (not those dropped over a rate). */
    public long peerFramesReceived() {
        return parts.peerServer.framesReceived();
    }

    /** Peer frames the handshake rules kept from the node: unverified or forged senders, bad hellos or answers. */
    public long peerFramesRefused() {
        return parts.peerServer.framesRefused();
    }

    /** Senders whose frame rate the peer port tracks now: verified peers by id, strangers by IP; bounded. */
    public long peersRateTracked() {
        return parts.peerServer.peersRateTracked();
    }

    /** Verified peers (by node id) whose frame rate the peer port tracks now; bounded. */
    public long verifiedPeersRateTracked() {
        return parts.peerServer.verifiedPeersRateTracked();
    }

    /** This node's metrics. */
    public PrometheusMeterRegistry meterRegistry() {
        return parts.registry;
    }

    /** Frames the transport tried to write after {@link #halt} began. A halt sends nothing: this must stay 0. */
    public long framesSentAfterHalt() {
        return parts.transport.framesSentAfterHalt();
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
        boolean posted = parts.gate.post(() -> parts.nodeOnLoop.leave(left));
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
        parts.gate.runOnLoop(parts.nodeOnLoop::stop, STATUS_TIMEOUT_MILLIS);
        parts.closeServers();
        parts.transport.close();
        parts.releaseAfterLoop();
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
        parts.transport.halt();
        parts.gate.runOnLoop(parts.nodeOnLoop::stop, STATUS_TIMEOUT_MILLIS);
        parts.closeServers();
        parts.releaseAfterLoop();
        if (parts.transport.framesSentAfterHalt() != 0) {
            log.error("{}: {} frames reached a socket after halt", contact, parts.transport.framesSentAfterHalt());
        }
        log.info("node {} halted", contact);
    }

    @Override
    public String toString() {
        return "RattanNode[" + contact + "]";
    }

    private void requireOffLoop(String what) {
        if (parts.loop.inEventLoop()) {
            throw new IllegalStateException(what + " blocks, so it must not be called on the node's loop");
        }
    }

    /** Spreads the id's bits into one seed, so that each node draws its own random sequence, and the same one again. */
    static long seedOf(Id id) {
        return id.hi() ^ Long.rotateLeft(id.mid(), 21) ^ (id.lo() * 0x9E37_79B9_7F4A_7C15L);
    }
}
