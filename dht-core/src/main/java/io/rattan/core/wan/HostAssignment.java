package io.rattan.core.wan;

import java.util.SplittableRandom;

/**
 * Places nodes on the hosts of a {@link LatencyMatrix}: node i runs on host {@link #hostOf(int) hostOf(i)}. The
 * simulator places its nodes this way, and a cluster of real processes emulating a wide area places its processes
 * the same way from the same seed, so that both live on the same hosts.
 *
 * <p>Hosts are taken in the order of a permutation drawn from the seed, node i on the permutation's entry
 * {@code i mod hosts}. With no more nodes than hosts every node therefore has a host of its own, a uniformly random
 * subset of the matrix. With more nodes than hosts we place several nodes per host with a small intra-host RTT
 * ({@value #DEFAULT_INTRA_HOST_RTT_MILLIS} ms by default), round-robin, so host loads differ by at most one node;
 * the alternative, synthesising new hosts from the matrix, would invent RTTs nobody measured. Immutable.
 */
public final class HostAssignment {

    /** RTT between two nodes on one host, as through the loopback interface of a loaded machine. */
    public static final double DEFAULT_INTRA_HOST_RTT_MILLIS = 0.5;

    private final int hosts;
    private final int[] hostOfNode;
    private final double intraHostRttMillis;

    private HostAssignment(int hosts, int[] hostOfNode, double intraHostRttMillis) {
        this.hosts = hosts;
        this.hostOfNode = hostOfNode;
        this.intraHostRttMillis = intraHostRttMillis;
    }

    /**
     * The placement of {@code nodes} nodes on {@code matrix}'s hosts for {@code seed}, with the default intra-host
     * RTT. The simulator's experiments, a wide-area cluster's nodes and the bench harness's clients all call this, so
     * that node i sits on the same host on every side.
     */
    public static HostAssignment on(LatencyMatrix matrix, int nodes, long seed) {
        return random(nodes, matrix.hosts(), seed);
    }

    /** A seeded placement with the default intra-host RTT. */
    public static HostAssignment random(int nodes, int hosts, long seed) {
        return random(nodes, hosts, seed, DEFAULT_INTRA_HOST_RTT_MILLIS);
    }

    /** A seeded placement of {@code nodes} nodes on {@code hosts} hosts; the same arguments give the same placement. */
    public static HostAssignment random(int nodes, int hosts, long seed, double intraHostRttMillis) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be positive, got " + nodes);
        }
        if (hosts < 1) {
            throw new IllegalArgumentException("hosts must be positive, got " + hosts);
        }
        if (!(intraHostRttMillis >= 0) || Double.isInfinite(intraHostRttMillis)) {
            throw new IllegalArgumentException("intraHostRttMillis must be finite and >= 0, got " + intraHostRttMillis);
        }
        int[] permutation = new int[hosts];
        for (int i = 0; i < hosts; i++) {
            permutation[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = hosts - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = permutation[i];
            permutation[i] = permutation[j];
            permutation[j] = t;
        }
        int[] hostOfNode = new int[nodes];
        for (int node = 0; node < nodes; node++) {
            hostOfNode[node] = permutation[node % hosts];
        }
        return new HostAssignment(hosts, hostOfNode, intraHostRttMillis);
    }

    /** Number of nodes placed. */
    public int nodes() {
        return hostOfNode.length;
    }

    /** Number of hosts available (the matrix size), not all of them used when there are fewer nodes. */
    public int hosts() {
        return hosts;
    }

    /** The host node {@code node} runs on. */
    public int hostOf(int node) {
        if (node < 0 || node >= hostOfNode.length) {
            throw new IndexOutOfBoundsException("node " + node + " outside 0.." + (hostOfNode.length - 1));
        }
        return hostOfNode[node];
    }

    /** Whether two nodes run on one host (a node shares a host with itself). */
    public boolean sameHost(int a, int b) {
        return hostOf(a) == hostOf(b);
    }

    /** RTT between two nodes: the intra-host RTT on one host, else the matrix entry of their hosts. */
    public double rttMillis(LatencyMatrix matrix, int a, int b) {
        int ha = hostOf(a);
        int hb = hostOf(b);
        return ha == hb ? intraHostRttMillis : matrix.rttMillis(ha, hb);
    }
}
