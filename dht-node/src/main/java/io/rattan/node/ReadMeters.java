package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.api.RoutingMode;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters of the gets this node serves for its peers: {@code rattan.gets.quorum} (tag {@code outcome}) and
 * {@code rattan.gets.read.repaired}, {@code rattan.gets.one.replica} (tag {@code read}),
 * {@code rattan.gets.routed.received} (tag {@code routing}) and {@code rattan.peer.cuts.ended}, after which a
 * replica reads more replicas for a while. Thread-safe.
 */
final class ReadMeters {

    private final MeterRegistry registry;
    private final Counter quorumComplete;
    private final Counter quorumPartial;
    private final Counter readRepaired;
    // Gets of consistency one served here as a replica: from the own store alone, or widened to more replicas.
    private final Counter oneReplicaOwn;
    private final Counter oneReplicaUnsettled;
    private final Counter oneReplicaStoreFault;
    private final Counter cutsEnded;
    private final AtomicReferenceArray<Counter> getsReceived =
            new AtomicReferenceArray<>(RoutingMode.values().length);

    ReadMeters(MeterRegistry registry) {
        this.registry = registry;
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

    void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
        (!secondReplica ? oneReplicaOwn : storeFault ? oneReplicaStoreFault : oneReplicaUnsettled).increment();
    }

    void cutEnded() {
        cutsEnded.increment();
    }

    void quorumReadDone(boolean partial, int recordsRepaired) {
        (partial ? quorumPartial : quorumComplete).increment();
        readRepaired.increment(recordsRepaired);
    }

    void getReceived(RoutingMode mode) {
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
}
