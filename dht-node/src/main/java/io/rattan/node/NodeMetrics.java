package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Status;
import io.rattan.core.node.NodeListener;
import io.rattan.core.node.NodeStatus;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.store.OffLoopStore;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.netty.TransportListener.Refusal;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A node's metrics, in Micrometer, named {@code rattan.*} in base units:
 * <ul>
 *   <li>{@code rattan.gateway.requests} (timer; tags {@code op} = put|get|remove, {@code status} = ok|not_found|…),
 *       with histogram buckets so that percentiles aggregate across nodes;</li>
 *   <li>{@code rattan.gateway.hops} (summary; tag {@code op});</li>
 *   <li>{@code rattan.gateway.get.messages} and {@code rattan.gateway.get.bytes} (summaries; tag {@code routing}):
 *       the in-band cost each answered get reports;</li>
 *   <li>{@code rattan.messages.sent} (counter; tag {@code type}, the message type in lower case);</li>
 *   <li>{@code rattan.store.records}, {@code rattan.leafset.size}, {@code rattan.routing.entries},
 *       {@code rattan.node.joined} (gauges, fed by {@link #update(NodeStatus)});</li>
 *   <li>{@code rattan.transport.bytes.sent}, {@code rattan.transport.bytes.received},
 *       {@code rattan.transport.frames.rejected} (counters; tag {@code protocol} = peer|client) and
 *       {@code rattan.transport.frames.dropped} (counter; tag {@code reason});</li>
 *   <li>{@code rattan.gets.quorum} (counter; tag {@code outcome} = complete|partial): quorum gets this node served
 *       as the replica that read the others, and {@code rattan.gets.read.repaired} (counter): records they sent to
 *       replicas that lacked them.</li>
 *   <li>{@code rattan.store.durable.gaveup} (counter; tag {@code wait} = put|copies): waits for a sync to make writes
 *       durable that gave up after half the request timeout (a disk whose sync does not return), answered as an I/O
 *       fault.</li>
 * </ul>
 * No tag names a peer or a key, so the number of series does not grow with the cluster or the data.
 *
 * <p>The {@link NodeListener} methods are called on the node's loop; everything else is thread-safe.
 */
public final class NodeMetrics implements NodeListener, AutoCloseable {

    private static final String[] OPS = {"put", "get", "remove"};
    private static final double[] HOP_BUCKETS = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32};

    private final MeterRegistry registry;
    // Created on first use, so that a status never seen exports no series.
    private final AtomicReferenceArray<Timer> requestTimers =
            new AtomicReferenceArray<>(OPS.length * Status.values().length);
    private final DistributionSummary[] hops = new DistributionSummary[OPS.length];
    private final AtomicReferenceArray<Counter> messagesSent =
            new AtomicReferenceArray<>(MessageType.values().length);
    private final AtomicReferenceArray<Counter> framesDropped =
            new AtomicReferenceArray<>(TransportListener.DropReason.values().length);
    private final AtomicReferenceArray<Counter> peerFramesRefused =
            new AtomicReferenceArray<>(TransportListener.RefusalReason.values().length);
    private final AtomicReferenceArray<Counter> getsReceived =
            new AtomicReferenceArray<>(RoutingMode.values().length);
    // Per routing mode: messages at 2i, bytes at 2i + 1; created on first use.
    private final AtomicReferenceArray<DistributionSummary> getCost =
            new AtomicReferenceArray<>(2 * RoutingMode.values().length);
    private final Counter quorumComplete;
    private final Counter quorumPartial;
    private final Counter readRepaired;
    private final AtomicLong storeRecords = new AtomicLong();
    private final AtomicLong leafSetSize = new AtomicLong();
    private final AtomicLong routingEntries = new AtomicLong();
    private final AtomicLong joined = new AtomicLong();
    private final AtomicLong startToReadyMillis = new AtomicLong(-1);
    private final AtomicLong processStartToReadyMillis = new AtomicLong(-1);
    // Gets of consistency one served here as a replica: from the own store alone, or widened to more replicas.
    private final Counter oneReplicaOwn;
    private final Counter oneReplicaUnsettled;
    private final Counter oneReplicaStoreFault;
    private final Counter cutsEnded;
    private final Counter requestsShed;
    private final Counter durableGaveUpPut;
    private final Counter durableGaveUpCopies;
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
        for (int i = 0; i < OPS.length; i++) {
            hops[i] = DistributionSummary.builder("rattan.gateway.hops")
                    .description("Overlay hops taken by client requests served by this node as gateway")
                    .baseUnit("hops")
                    .tag("op", OPS[i])
                    .serviceLevelObjectives(HOP_BUCKETS)
                    .register(registry);
        }
        quorumComplete = quorumCounter("complete");
        quorumPartial = quorumCounter("partial");
        readRepaired = Counter.builder("rattan.gets.read.repaired")
                .description("Records quorum gets served here sent to replicas that lacked them (read repair)")
                .register(registry);
        oneReplicaOwn = oneReplicaCounter("own");
        oneReplicaUnsettled = oneReplicaCounter("unsettled");
        oneReplicaStoreFault = oneReplicaCounter("store_fault");
        cutsEnded = Counter.builder("rattan.peer.cuts.ended")
                .description("Members that answered again after a cut (a second or more of requests to them lost); "
                        + "the keys they replicate here read more replicas for the settling window")
                .register(registry);
        gauge("rattan.store.records", "Records in the local store, tombstones included", storeRecords);
        gauge("rattan.leafset.size", "Members of the leaf set, both sides", leafSetSize);
        gauge("rattan.routing.entries", "Contacts in the routing table", routingEntries);
        gauge("rattan.node.joined", "1 once the node has joined the overlay", joined);
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
        this.durableGaveUpPut = durableGaveUpCounter("put");
        this.durableGaveUpCopies = durableGaveUpCounter("copies");
        this.peerTransport = transportListener("peer");
        this.clientTransport = transportListener("client");
        this.httpTransport = transportListener("http");
    }

    /** Counts the client limits' refusals: requests over a client's rate, puts beyond its storage share. */
    public void bindClientGuard(io.rattan.node.gateway.ClientGuard guard) {
        io.micrometer.core.instrument.FunctionCounter.builder("rattan.gateway.refused", guard,
                        io.rattan.node.gateway.ClientGuard::rateLimited)
                .description("Client requests refused by the client limits (binary and HTTP together)")
                .tag("reason", "rate_limited").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("rattan.gateway.refused", guard,
                        io.rattan.node.gateway.ClientGuard::quotaExceeded)
                .description("Client requests refused by the client limits (binary and HTTP together)")
                .tag("reason", "quota_exceeded").register(registry);
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
    public NodeMetrics bindStore(RocksDbStore store) {
        FunctionCounter.builder("rattan.store.faults", store, RocksDbStore::fullFaults)
                .description("Store operations that failed, by kind (full: no space; io: any other I/O error)")
                .tag("kind", "full").register(registry);
        FunctionCounter.builder("rattan.store.faults", store, RocksDbStore::ioFaults)
                .description("Store operations that failed, by kind (full: no space; io: any other I/O error)")
                .tag("kind", "io").register(registry);
        FunctionCounter.builder("rattan.store.corrupt.records", store, RocksDbStore::corruptRecords)
                .description("Undecodable records skipped by reads and scans (each counted once)")
                .register(registry);
        FunctionCounter.builder("rattan.store.wal.syncs", store, RocksDbStore::walSyncs)
                .description("Write-ahead log syncs (RocksDB's WAL_FILE_SYNCED ticker)")
                .register(registry);
        Gauge.builder("rattan.store.faulted", store, s -> s.fault() == null ? 0 : 1)
                .description("1 while the store is in a storage fault (the node is then not ready)")
                .register(registry);
        return this;
    }

    /** The store thread's meters: tasks waiting for it, and those refused because too many waited. */
    public NodeMetrics bindStoreThread(OffLoopStore store) {
        Gauge.builder("rattan.store.queue.tasks", store, OffLoopStore::queued)
                .description("Store tasks (writes, scans, repair reads, purges) waiting for the store thread")
                .register(registry);
        FunctionCounter.builder("rattan.store.busy", store, OffLoopStore::refused)
                .description("Store tasks refused because the store thread's queue was full (answered as I/O errors)")
                .register(registry);
        return this;
    }

    /** The registry the meters live in. */
    public MeterRegistry registry() {
        return registry;
    }

    @Override
    public void clientRequestDone(MessageType op, Status status, long latencyNanos, int hopCount) {
        int opIndex = opIndex(op);
        if (opIndex < 0 || status == null) {
            return;
        }
        int slot = opIndex * Status.values().length + status.ordinal();
        Timer timer = requestTimers.get(slot);
        if (timer == null) {
            timer = Timer.builder("rattan.gateway.requests")
                    .description("Client requests served by this node as gateway, from arrival to reply")
                    .tag("op", OPS[opIndex])
                    .tag("status", status.name().toLowerCase(Locale.ROOT))
                    .publishPercentileHistogram(true)
                    .minimumExpectedValue(Duration.ofNanos(100_000))
                    .maximumExpectedValue(Duration.ofSeconds(60))
                    .register(registry);
            requestTimers.set(slot, timer);
        }
        timer.record(Math.max(0, latencyNanos), TimeUnit.NANOSECONDS);
        hops[opIndex].record(Math.max(0, hopCount));
    }

    @Override
    public void clientGetCost(RoutingMode routing, Cost cost) {
        if (routing == null || cost == null) {
            return;
        }
        costSummary(routing, 0, "rattan.gateway.get.messages", "messages",
                "Messages each get served by this node as gateway cost, as counted in band").record(cost.messages());
        costSummary(routing, 1, "rattan.gateway.get.bytes", "bytes",
                "Bytes each get served by this node as gateway cost, as counted in band (44 B header allowance "
                        + "per message)").record(cost.bytes());
    }

    private DistributionSummary costSummary(RoutingMode routing, int which, String name, String unit,
                                            String description) {
        int slot = 2 * routing.ordinal() + which;
        DistributionSummary summary = getCost.get(slot);
        if (summary == null) {
            summary = DistributionSummary.builder(name)
                    .description(description)
                    .baseUnit(unit)
                    .tag("routing", routing.label())
                    .register(registry);
            getCost.set(slot, summary);
        }
        return summary;
    }

    private Counter quorumCounter(String outcome) {
        return Counter.builder("rattan.gets.quorum")
                .description("Quorum gets this node served as the replica that read the others; partial: fewer "
                        + "than R replicas answered")
                .tag("outcome", outcome)
                .register(registry);
    }

    private Counter oneReplicaCounter(String read) {
        return Counter.builder("rattan.gets.one.replica")
                .description("Gets of consistency one served here as a replica; own: from this node's store alone; "
                        + "unsettled: its view of the key changed moments ago, so it read the next replicas too; "
                        + "store_fault: its store refuses writes, so it read the next replicas too")
                .tag("read", read)
                .register(registry);
    }

    @Override
    public void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
        (!secondReplica ? oneReplicaOwn : storeFault ? oneReplicaStoreFault : oneReplicaUnsettled).increment();
    }

    @Override
    public void cutEnded() {
        cutsEnded.increment();
    }

    @Override
    public void quorumReadDone(boolean partial, int recordsRepaired) {
        (partial ? quorumPartial : quorumComplete).increment();
        readRepaired.increment(recordsRepaired);
    }

    @Override
    public void getReceived(RoutingMode mode) {
        Counter counter = getsReceived.get(mode.ordinal());
        if (counter == null) {
            counter = Counter.builder("rattan.gets.routed.received")
                    .description("Gets routed to or through this node by peers, by routing mode")
                    .tag("routing", mode.label())
                    .register(registry);
            getsReceived.set(mode.ordinal(), counter);
        }
        counter.increment();
    }

    @Override
    public void messageSent(MessageType type) {
        Counter counter = messagesSent.get(type.ordinal());
        if (counter == null) {
            counter = Counter.builder("rattan.messages.sent")
                    .description("Messages sent to peers, by type")
                    .tag("type", type.name().toLowerCase(Locale.ROOT))
                    .register(registry);
            messagesSent.set(type.ordinal(), counter);
        }
        counter.increment();
    }

    private Counter durableGaveUpCounter(String wait) {
        return Counter.builder("rattan.store.durable.gaveup")
                .description("Waits for a sync to make writes durable that gave up after half the request timeout "
                        + "(the disk did not return), answered as an I/O fault; wait: the root's own copy of a put, "
                        + "or copies a peer sent")
                .tag("wait", wait)
                .register(registry);
    }

    @Override
    public void durableWaitGaveUp(boolean ownCopy) {
        (ownCopy ? durableGaveUpPut : durableGaveUpCopies).increment();
    }

    /** Waits for a durable write that gave up so far ({@link #durableWaitGaveUp}), both kinds. */
    public double durableWaitsGivenUp() {
        return durableGaveUpPut.count() + durableGaveUpCopies.count();
    }

    @Override
    public void requestShed() {
        requestsShed.increment();
    }

    /** Requests in flight shed so far, the oldest first, when the node's table of them was full. */
    public double requestsShed() {
        return requestsShed.count();
    }

    /** Refreshes the gauges from a snapshot taken on the node's loop. Any thread. */
    public void update(NodeStatus status) {
        storeRecords.set(status.storedRecords());
        leafSetSize.set(status.leafSet().size());
        routingEntries.set(status.routingEntries());
        joined.set(status.joined() ? 1 : 0);
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

    private TransportListener transportListener(String protocol) {
        // No base unit: the name already says bytes, and a unit would export rattan_transport_bytes_sent_bytes_total.
        Counter sent = Counter.builder("rattan.transport.bytes.sent")
                .description("Bytes written to sockets, length prefixes included")
                .tag("protocol", protocol).register(registry);
        Counter received = Counter.builder("rattan.transport.bytes.received")
                .description("Bytes read from sockets")
                .tag("protocol", protocol).register(registry);
        Counter rejected = Counter.builder("rattan.transport.frames.rejected")
                .description("Inbound frames refused (undecodable, oversize); each closes its connection")
                .tag("protocol", protocol).register(registry);
        Counter[] refusals = refusalCounters(protocol);
        return new TransportListener() {
            @Override
            public void refused(Refusal refusal) {
                refusals[refusal.ordinal()].increment();
            }

            @Override
            public void bytesSent(long bytes) {
                sent.increment(bytes);
            }

            @Override
            public void bytesReceived(long bytes) {
                received.increment(bytes);
            }

            @Override
            public void frameRejected() {
                rejected.increment();
            }

            @Override
            public void frameDropped(DropReason reason) {
                Counter counter = framesDropped.get(reason.ordinal());
                if (counter == null) {
                    counter = Counter.builder("rattan.transport.frames.dropped")
                            .description("Outbound frames dropped without being written")
                            .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                            .register(registry);
                    framesDropped.set(reason.ordinal(), counter);
                }
                counter.increment();
            }

            @Override
            public void peerFrameRefused(RefusalReason reason) {
                Counter counter = peerFramesRefused.get(reason.ordinal());
                if (counter == null) {
                    counter = Counter.builder("rattan.peer.frames.refused")
                            .description("Inbound peer frames the handshake rules kept from the node "
                                    + "(unverified or forged sender, bad hello or answer)")
                            .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                            .register(registry);
                    peerFramesRefused.set(reason.ordinal(), counter);
                }
                counter.increment();
            }
        };
    }

    private Counter[] refusalCounters(String protocol) {
        Counter[] refusals = new Counter[Refusal.values().length];
        for (Refusal r : Refusal.values()) {
            refusals[r.ordinal()] = Counter.builder("rattan.limits.refused")
                    .description("Connections refused or closed and frames dropped to keep within the node's limits")
                    .tag("protocol", protocol)
                    .tag("reason", r.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        return refusals;
    }

    private void gauge(String name, String description, AtomicLong value) {
        Gauge.builder(name, value, AtomicLong::doubleValue)
                .description(description)
                .strongReference(true)
                .register(registry);
    }

    private static int opIndex(MessageType op) {
        if (op == null) {
            return -1;
        }
        switch (op) {
            case CLIENT_PUT:
                return 0;
            case CLIENT_GET:
                return 1;
            case CLIENT_REMOVE:
                return 2;
            default:
                return -1;
        }
    }
}
