package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.rattan.api.Cost;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.MessageType;
import io.rattan.core.node.NodeListener;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.PeerTls;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A node's metrics, in Micrometer, named {@code rattan.*} in base units:
 * <ul>
 *   <li>the gateway's ({@link GatewayMeters}): {@code rattan.gateway.requests} (timer; tags {@code op} =
 *       put|get|remove, {@code status} = ok|not_found|…), with histogram buckets so that percentiles aggregate
 *       across nodes; {@code rattan.gateway.hops} (summary; tag {@code op}); {@code rattan.gateway.get.messages} and
 *       {@code rattan.gateway.get.bytes} (summaries; tag {@code routing}): the in-band cost each answered get
 *       reports;</li>
 *   <li>the transport's ({@link TransportMeters}): {@code rattan.messages.sent} (counter; tag {@code type}, the
 *       message type in lower case); {@code rattan.transport.bytes.sent}, {@code rattan.transport.bytes.received},
 *       {@code rattan.transport.frames.rejected} (counters; tag {@code protocol} = peer|client) and
 *       {@code rattan.transport.frames.dropped} (counter; tag {@code reason});</li>
 *   <li>the gets served for peers ({@link ReadMeters}): {@code rattan.gets.quorum} (counter; tag {@code outcome} =
 *       complete|partial): quorum gets this node served as the replica that read the others, and
 *       {@code rattan.gets.read.repaired} (counter): records they sent to replicas that lacked them;</li>
 *   <li>the store's ({@link StoreMeters}): {@code rattan.store.durable.gaveup} (counter; tag {@code wait} =
 *       put|copies): waits for a sync to make writes durable that gave up after half the request timeout (a disk
 *       whose sync does not return), answered as an I/O fault;</li>
 *   <li>repair's progress ({@link RepairMeters}) and the store's bytes on disk ({@code rattan.store.sst.bytes}),
 *       fed as the gauges below are;</li>
 *   <li>the node's own, here: {@code rattan.store.records}, {@code rattan.leafset.size},
 *       {@code rattan.leafset.suspects}, {@code rattan.routing.entries}, {@code rattan.node.joined} (gauges, fed
 *       by {@link #update(NodeStatus)}).</li>
 * </ul>
 * No tag names a peer or a key, so the number of series does not grow with the cluster or the data.
 *
 * <p>The {@link NodeListener} methods are called on the node's loop; everything else is thread-safe.
 */
public final class NodeMetrics implements NodeListener, AutoCloseable {

    private final MeterRegistry registry;
    private final GatewayMeters gateway;
    private final ReadMeters reads;
    private final StoreMeters store;
    private final TransportMeters transport;
    private final RepairMeters repair;
    private final AtomicLong storeRecords = new AtomicLong();
    private final AtomicLong leafSetSize = new AtomicLong();
    private final AtomicLong leafSuspects = new AtomicLong();
    private final AtomicLong routingEntries = new AtomicLong();
    private final AtomicLong joined = new AtomicLong();
    private final AtomicLong clientWatches = new AtomicLong();
    private final AtomicLong watchRegistrations = new AtomicLong();
    // One gauge per namespace other than the default (at most 64: NamespaceDefinition.COUNT_MAX).
    private final Map<String, AtomicLong> namespaceRecords = new ConcurrentHashMap<>();
    private final AtomicLong startToReadyMillis = new AtomicLong(-1);
    private final AtomicLong processStartToReadyMillis = new AtomicLong(-1);
    private final Counter requestsShed;
    private final Counter putAcksRefused;
    private final Counter getAnswersSetAside;
    private final Counter originUnproven;
    private final Counter originRateLimited;
    private final Counter originQuotaExceeded;
    private final Counter removeAcksRefused;
    private final Counter deadByProbe;
    private final Counter deadByRefusal;
    private final TransportListener peerTransport;
    private final TransportListener clientTransport;
    private final TransportListener httpTransport;
    private JvmGcMetrics gcMetrics;

    /** Registers the node's meters in {@code registry}; JVM meters only after {@link #bindJvmMetrics}. */
    public NodeMetrics(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry is required");
        }
        this.registry = registry;
        this.gateway = new GatewayMeters(registry);
        this.reads = new ReadMeters(registry);
        Gauge.builder("rattan.build.info", () -> 1.0)
                .description("1, with this build's version, peer protocol version and Java runtime as tags")
                .tag("version", BuildInfo.VERSION)
                .tag("protocol", Integer.toString(BuildInfo.PROTOCOL))
                .tag("java", System.getProperty("java.version", "unknown"))
                .register(registry);
        gauge("rattan.store.records", "Records in the local store, tombstones included", storeRecords);
        gauge("rattan.leafset.size", "Members of the leaf set, both sides", leafSetSize);
        gauge("rattan.leafset.suspects", "Leaf-set members suspected now: their requests go unanswered, they are out "
                + "of every replica set until they answer again", leafSuspects);
        gauge("rattan.routing.entries", "Contacts in the routing table", routingEntries);
        gauge("rattan.node.joined", "1 once the node has joined the overlay", joined);
        gauge("rattan.watches", "Clients' watches this node serves as gateway", clientWatches);
        gauge("rattan.watch.registrations", "Gateways' watch registrations this node holds as a key's replica",
                watchRegistrations);
        gauge("rattan.node.start.to.ready.millis", "From the node's start to its first ready; -1 until then",
                startToReadyMillis);
        gauge("rattan.node.process.start.to.ready.millis",
                "From the process's start (JVM boot included) to the node's first ready; -1 until then",
                processStartToReadyMillis);
        this.requestsShed = Counter.builder("rattan.overload.shed")
                .description("Requests in flight shed, the oldest first, when the node's table of them was full "
                        + "(a shed client request is answered UNAVAILABLE)")
                .tag("queue", "requests_in_flight")
                .register(registry);
        this.putAcksRefused = Counter.builder("rattan.put.acks.refused")
                .description("Replicas' acks of a put's copy that this gateway did not count: they named another "
                        + "record than the put it sent (a hop changed the put, or lengthened its life)")
                .register(registry);
        this.getAnswersSetAside = Counter.builder("rattan.get.answers.set.aside")
                .description("Answers to gets this gateway started that it did not take: their sender was no replica "
                        + "of the key in its view (or, empty, not its root); it asked the closest node it knows")
                .register(registry);
        this.originUnproven = originRefused(registry, "unproven");
        this.originRateLimited = originRefused(registry, "rate_limited");
        this.originQuotaExceeded = originRefused(registry, "quota_exceeded");
        this.removeAcksRefused = Counter.builder("rattan.remove.acks.refused")
                .description("Acks that reached a remove's gateway and were not counted: a tombstone ack naming "
                        + "another key or value than the remove it sent, a put's ack, or one with no sender")
                .register(registry);
        this.deadByProbe = declaredDead(registry, "probe_unanswered");
        this.deadByRefusal = declaredDead(registry, "refused");
        this.store = new StoreMeters(registry);
        this.repair = new RepairMeters(registry);
        this.transport = new TransportMeters(registry);
        this.peerTransport = transport.listener("peer");
        this.clientTransport = transport.listener("client");
        this.httpTransport = transport.listener("http");
    }

    /** Counts the client limits' refusals: requests over a client's rate, puts beyond its storage share. */
    public void bindClientGuard(ClientGuard guard) {
        gateway.bindClientGuard(guard);
    }

    /** Exports what TLS between nodes refused: failed handshakes, connections of revoked nodes closed. */
    public void bindPeerTls(PeerTls tls) {
        FunctionCounter.builder("rattan.peer.tls.handshakes.failed", tls, PeerTls::handshakesFailed)
                .description("TLS handshakes on peer connections that failed, either end: a peer without the "
                        + "cluster's certificate, a revoked one, a timeout")
                .register(registry);
        FunctionCounter.builder("rattan.peer.tls.revoked.closed", tls, PeerTls::connectionsCutOff)
                .description("Peer connections closed because their node was revoked while they were open")
                .register(registry);
        Gauge.builder("rattan.peer.tls.revoked", tls, PeerTls::revokedCount)
                .description("Node ids in the TLS revocation list (--tls-revoked)")
                .register(registry);
    }

    /** Exports the HTTP requests refused for a missing or unknown bearer token (answered 401). */
    public void bindTokens(BearerTokens tokens) {
        FunctionCounter.builder("rattan.http.unauthorized", tokens, BearerTokens::refused)
                .description("HTTP requests refused (401) for a missing or unknown bearer token (--http-tokens)")
                .register(registry);
    }

    /**
     * Exports the protocol version this node speaks and how many peers it speaks an older one to: above 0, a rolling
     * upgrade is under way (docs/deploy.md).
     */
    public void bindProtocol(int spoken, IntSupplier peersSpeakingOlder) {
        Gauge.builder("rattan.protocol.spoken", () -> spoken)
                .description("The protocol version this node speaks (--protocol-version); speaking the newest, it "
                        + "reads the one before too")
                .register(registry);
        Gauge.builder("rattan.peers.older.protocol", peersSpeakingOlder::getAsInt)
                .description("Peers this node speaks an older protocol version to, as the hello of their open "
                        + "connection to it said: above 0, a rolling upgrade is under way")
                .register(registry);
    }

    /** Also exports JVM memory, GC, thread, class-loading, CPU and uptime metrics; released by {@link #close}. */
    public synchronized NodeMetrics bindJvmMetrics() {
        if (gcMetrics == null) {
            new JvmMemoryMetrics().bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ClassLoaderMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
            gcMetrics = new JvmGcMetrics();
            gcMetrics.bindTo(registry);
        }
        return this;
    }

    /**
     * Exports the store's fault counters: writes refused for full storage, I/O failures, corrupt records skipped,
     * WAL syncs, and whether the store is faulted now (1) or healthy (0).
     */
    public NodeMetrics bindStore(RocksDbStore rocksDbStore) {
        store.bindStore(rocksDbStore);
        return this;
    }

    /** The store thread's meters: tasks waiting for it, and those refused because too many waited. */
    public NodeMetrics bindStoreThread(OffLoopStore offLoopStore) {
        store.bindStoreThread(offLoopStore);
        return this;
    }

    @Override
    public void clientRequestDone(MessageType op, Status status, long latencyNanos, int hopCount) {
        gateway.clientRequestDone(op, status, latencyNanos, hopCount);
    }

    @Override
    public void clientGetCost(RoutingMode routing, Cost cost) {
        gateway.clientGetCost(routing, cost);
    }

    @Override
    public void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
        reads.oneReplicaGetServed(secondReplica, storeFault);
    }

    @Override
    public void cutEnded() {
        reads.cutEnded();
    }

    @Override
    public void quorumReadDone(boolean partial, int recordsRepaired) {
        reads.quorumReadDone(partial, recordsRepaired);
    }

    @Override
    public void getReceived(RoutingMode mode) {
        reads.getReceived(mode);
    }

    @Override
    public void messageSent(MessageType type) {
        transport.messageSent(type);
    }

    @Override
    public void durableWaitGaveUp(boolean ownCopy) {
        store.durableWaitGaveUp(ownCopy);
    }

    @Override
    public void requestShed() {
        requestsShed.increment();
    }

    @Override
    public void getAnswerSetAside() {
        getAnswersSetAside.increment();
    }

    @Override
    public void putAckRefused() {
        putAcksRefused.increment();
    }

    private static Counter originRefused(MeterRegistry registry, String reason) {
        return Counter.builder("rattan.origin.puts.refused")
                .description("Puts this node, as a key's root, refused by their origin: no valid signature of it "
                        + "(unproven), or over its rate or share here")
                .tag("reason", reason)
                .register(registry);
    }

    @Override
    public void originPutRefused(Status status) {
        switch (status) {
            case RATE_LIMITED -> originRateLimited.increment();
            case QUOTA_EXCEEDED -> originQuotaExceeded.increment();
            default -> originUnproven.increment();
        }
    }

    @Override
    public void removeAckRefused() {
        removeAcksRefused.increment();
    }

    @Override
    public void peerDeclaredDead(boolean refused) {
        (refused ? deadByRefusal : deadByProbe).increment();
    }

    @Override
    public void repairRequestRefused(boolean busy) {
        repair.refused(busy);
    }

    @Override
    public void repairTombstonesWithheld(int n) {
        repair.withheld(n);
    }

    private static Counter declaredDead(MeterRegistry registry, String cause) {
        return Counter.builder("rattan.peers.declared.dead")
                .description("Neighbours (leaf-set members, routing-table entries) this node declared dead: their "
                        + "probe went unanswered for the RTO's cap, or their address refused a connection while they "
                        + "were suspected")
                .tag("cause", cause)
                .register(registry);
    }

    /** Refreshes the gauges from a snapshot taken on the node's loop. Any thread. */
    public void update(NodeStatus status) {
        storeRecords.set(status.storedRecords());
        leafSetSize.set(status.leafSet().size());
        routingEntries.set(status.routingEntries());
        joined.set(status.joined() ? 1 : 0);
        leafSuspects.set(status.leafSuspects());
        clientWatches.set(status.clientWatches());
        watchRegistrations.set(status.watchRegistrations());
        // A retired namespace's gauge reads 0 from then on.
        namespaceRecords.forEach((name, count) -> count.set(status.namespaceRecords().getOrDefault(name, 0L)));
        status.namespaceRecords().forEach((name, count) -> namespaceRecords.computeIfAbsent(name, n -> {
            AtomicLong held = new AtomicLong();
            Gauge.builder("rattan.namespace.records", held, AtomicLong::get)
                    .description("Records in a namespace's local store, tombstones included (the default "
                            + "namespace's: rattan.store.records)")
                    .tag("namespace", n).register(registry);
            return held;
        }).set(count));
        repair.update(status.repair());
    }

    /** The store's files on disk now, in bytes. */
    public void storeBytes(long sstBytes) {
        store.sstBytes(sstBytes);
    }

    /** Records the node's first ready: milliseconds since the node's start and since the process's start. */
    public void ready(long sinceNodeStartMillis, long sinceProcessStartMillis) {
        startToReadyMillis.set(sinceNodeStartMillis);
        processStartToReadyMillis.set(sinceProcessStartMillis);
    }

    /** Counts the peer transport and server: bytes, rejected inbound frames, dropped outbound frames. */
    public TransportListener peerTransport() {
        return peerTransport;
    }

    /** Counts the binary client gateway: bytes and rejected frames. */
    public TransportListener clientTransport() {
        return clientTransport;
    }

    /** Counts the HTTP gateway's refusals (its bytes are not counted). */
    public TransportListener httpTransport() {
        return httpTransport;
    }

    @Override
    public synchronized void close() {
        if (gcMetrics != null) {
            gcMetrics.close();
            gcMetrics = null;
        }
    }

    private void gauge(String name, String description, AtomicLong value) {
        Gauge.builder(name, value, AtomicLong::doubleValue)
                .description(description)
                .strongReference(true)
                .register(registry);
    }
}
