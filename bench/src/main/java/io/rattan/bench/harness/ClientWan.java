package io.rattan.bench.harness;

import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The wide area between a {@code bench table} client and the cluster's gateways, on a cluster started with
 * {@code --wan}: the simulator's client sits on its round's node's host, so a request to node j's gateway and its
 * answer each cross half the round trip between the two hosts, with the simulator's jitter. The nodes delay only
 * what they send to peers ({@code WanDelays}); this adds the client's legs, which the nodes cannot see. Without
 * {@code --wan}, every leg is 0. Confined to the table's loop.
 */
final class ClientWan {

    private static final long CLIENT_JITTER_SALT = 0x9E3779B97F4A7C15L;

    private final LatencyMatrix matrix;
    private final HostAssignment hosts;
    private final SplittableRandom jitter;

    private ClientWan(LatencyMatrix matrix, HostAssignment hosts, SplittableRandom jitter) {
        this.matrix = matrix;
        this.hosts = hosts;
        this.jitter = jitter;
    }

    /** No wide area: every leg takes only what loopback takes. */
    static ClientWan none() {
        return new ClientWan(null, null, null);
    }

    /**
     * The wide area of a cluster of {@code nodes} whose node options are {@code options}: its {@code --wan} matrix
     * and {@code --wan-seed} (1 by default, as the node's), or none when the cluster has no {@code --wan}.
     */
    static ClientWan of(List<String> options, int nodes) {
        String wan = TableCluster.option(options, "--wan");
        if (wan == null) {
            return none();
        }
        String seedText = TableCluster.option(options, "--wan-seed");
        long seed = seedText == null ? 1 : Long.parseLong(seedText);
        LatencyMatrix matrix = LatencyMatrix.named(wan, "--wan");
        // The nodes' placement; the client's jitter from a stream no node draws from.
        return new ClientWan(matrix, HostAssignment.on(matrix, nodes, seed),
                new SplittableRandom(seed ^ CLIENT_JITTER_SALT));
    }

    boolean isOn() {
        return matrix != null;
    }

    /** One leg between a client on node {@code client}'s host and node {@code node}'s gateway, in nanoseconds. */
    long legNanos(int client, int node) {
        if (matrix == null) {
            return 0;
        }
        return OneWayDelay.nanos(hosts.rttMillis(matrix, client, node), OneWayDelay.DEFAULT_JITTER_FRACTION, jitter);
    }
}
