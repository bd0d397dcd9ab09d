package io.rattan.node.transport;

import io.rattan.api.Address;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A wide area emulated on one machine: the nodes of a cluster are placed on the hosts of a latency matrix as the
 * simulator places N nodes with the same seed ({@link HostAssignment}), and a frame from this node to a peer waits
 * the one-way delay between their hosts, with the simulator's jitter ({@link OneWayDelay}). An address that is not
 * one of the cluster's peers gets no delay: clients reach a node through its gateway, on the gateway's host, as in
 * the simulator. Asked on the node's loop only (the jitter stream is not thread-safe).
 */
public final class WanDelays implements PeerDelays {

    private final LatencyMatrix matrix;
    private final HostAssignment hosts;
    private final Map<Address, Integer> nodeOf;
    private final int self;
    private final long seed;
    private final double jitterFraction;
    private final SplittableRandom jitter;

    /**
     * @param matrix         host-to-host round trips
     * @param peers          every node's peer address, in cluster order (node i is entry i), this node's among them
     * @param self           this node's index in {@code peers}
     * @param seed           seeds the placement, as the simulator's seed does, and this node's jitter
     * @param jitterFraction σ of the jitter as a fraction of the one-way delay; 0 for none
     */
    public WanDelays(LatencyMatrix matrix, List<Address> peers, int self, long seed, double jitterFraction) {
        this.matrix = Objects.requireNonNull(matrix, "matrix");
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("no peer addresses: the list names every node of the cluster");
        }
        if (self < 0 || self >= peers.size()) {
            throw new IllegalArgumentException("node index " + self + " is not in 0.." + (peers.size() - 1)
                    + " (the peer list names " + peers.size() + " nodes)");
        }
        this.nodeOf = new HashMap<>();
        for (int i = 0; i < peers.size(); i++) {
            Integer before = nodeOf.put(Objects.requireNonNull(peers.get(i), "peer address"), i);
            if (before != null) {
                throw new IllegalArgumentException("peer address " + peers.get(i) + " is listed twice (nodes "
                        + before + " and " + i + ")");
            }
        }
        this.hosts = HostAssignment.on(matrix, peers.size(), seed);
        this.self = self;
        this.seed = seed;
        this.jitterFraction = OneWayDelay.checkJitter(jitterFraction);
        // Its own stream, split from the seed by this node's index: the nodes of a cluster draw independently, and
        // a node restarted with the same flags draws the same delays for the same frames.
        SplittableRandom root = new SplittableRandom(seed);
        SplittableRandom mine = root.split();
        for (int i = 0; i < self; i++) {
            mine = root.split();
        }
        this.jitter = mine;
    }

    @Override
    public long delayNanos(Address to) {
        Integer peer = nodeOf.get(to);
        if (peer == null) {
            return 0;
        }
        return OneWayDelay.nanos(hosts.rttMillis(matrix, self, peer), jitterFraction, jitter);
    }

    /** The matrix host of the node at {@code peer}; -1 if it is none of the cluster's nodes. */
    public int hostOf(Address peer) {
        Integer node = nodeOf.get(peer);
        return node == null ? -1 : hosts.hostOf(node);
    }

    /** The round trip from this node to the node at {@code peer}, without jitter, in ms; 0 if it is none of them. */
    public double rttMillis(Address peer) {
        Integer node = nodeOf.get(peer);
        return node == null ? 0 : hosts.rttMillis(matrix, self, node);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "wide area: node %d of %d on host %d of %d, seed %d, jitter %.2f", self,
                hosts.nodes(), hosts.hostOf(self), hosts.hosts(), seed, jitterFraction);
    }
}
