package io.rattan.sim.net;

import io.rattan.api.Address;
import io.rattan.core.env.Clock;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.slow.SlowTrace;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * A wide-area network of FIFO-server nodes: the simulated world of ANCHORS-LATENCY.md.
 *
 * <p>A message from node s to node d sent at time t (virtual-world node i has the address
 * {@code VirtualAddresses.of("node", i)}) crosses the network in RTT(host(s), host(d)) / 2 plus jitter, normally
 * distributed with σ = {@code jitterFraction} of that delay and truncated at 0 ({@link OneWayDelay}, which the node's
 * wide-area emulation draws from too), arriving at a = t + network delay. Node d is a single FIFO server: service
 * starts at s = max(a, when d's previous message finished) and takes the base service time plus an extra delay —
 * sampled from the slow periods covering s if there are any, else, rarely, a healthy stall — and the message is
 * delivered when service ends. {@link #delayNanos} returns that end time minus t. Clients ({@link #clientAddress}) sit
 * on a node's host but are not servers: a message to one arrives after the network delay.
 *
 * <p>Approximations, each chosen because {@link LatencyModel} fixes a message's delay once, when it is sent:
 * <ul>
 *   <li>A message's service is booked when it is sent, and a booking is never moved: a message that arrives before
 *       one sent earlier (from a farther host) is served in the idle gap before that one's booking if its service
 *       fits there, else after the last booking. So a busy node may serve a later arrival first, and a message that
 *       does not fit a gap waits at most the difference of the two network delays too long. (Until December 2026
 *       every message waited behind every message sent to its node before it, still on the way or not: a healthy
 *       node's gets queued behind far maintenance messages, and routed p50s came out 20–35 % above a real
 *       cluster's on the same inputs; see experiments.md.)</li>
 *   <li>Slowness is looked up when service starts (at the gap's start when the message does not fit it, or at the
 *       last booking's end when the queue is too long to search), and the extra delay drawn then applies in full,
 *       even if the slow period ends during the service.</li>
 *   <li>Only the receiving node serves a message; sending costs nothing at the sender.</li>
 *   <li>The one-way delay is half the measured RTT from the sender's host to the receiver's; real paths may be
 *       asymmetric, the matrix cannot say how.</li>
 *   <li>Jitter is drawn independently per message; a negative draw is clamped to 0, not redrawn (at σ = 10% that
 *       takes a 10σ draw).</li>
 *   <li>Drops are decided by {@link #drops} from the receiver's state at send time, not at arrival; slow periods
 *       last minutes and the network takes milliseconds.</li>
 *   <li>A node's timers take no service time: one that falls due while messages that arrived before it are waiting
 *       or being served runs when they are done ({@link #readyAtNanos}), and messages arriving meanwhile do not
 *       hold it back further.</li>
 * </ul>
 * A message served in a gap may end before one sent earlier on the same link; {@code VirtualNetwork}'s per-link FIFO
 * rule then holds it until that one is delivered.
 *
 * <p>Randomness comes from {@code seed}, not from the generator the network passes in, which is ignored: each node's
 * service draws come from its own stream, so traffic to one node does not shift what another draws, and a model
 * built from the same seed and periods gives the same delays for the same sequence of calls. Mutable (the queues
 * and the random streams); use one instance per run, on the world's thread.
 */
public final class WideAreaLatencyModel implements LatencyModel {

    private final LatencyMatrix matrix;
    private final HostAssignment hosts;
    private final SlowNodeModel knobs;
    private final double jitterFraction;
    private final PeriodIndex periods;
    private final long[] freeAtNanos;
    private final ServiceQueues queues;
    private final SplittableRandom jitterRandom;
    private final SplittableRandom dropRandom;
    private final SplittableRandom[] serviceRandom;
    private Clock clock;

    /** A model with the default jitter, σ = {@value OneWayDelay#DEFAULT_JITTER_FRACTION} of the one-way delay. */
    public WideAreaLatencyModel(LatencyMatrix matrix, HostAssignment hosts, List<SlowPeriod> periods,
            SlowNodeModel knobs, long seed) {
        this(matrix, hosts, periods, knobs, OneWayDelay.DEFAULT_JITTER_FRACTION, seed);
    }

    /**
     * @param matrix         host-to-host RTTs
     * @param hosts          where each node runs; its node count bounds the node indexes the model accepts
     * @param periods        the slow periods, generated by {@link SlowSchedule} or read by {@link SlowTrace}
     * @param knobs          base service time and healthy stalls (the periods carry their own effects)
     * @param jitterFraction σ of the network jitter as a fraction of the one-way delay; 0 for none
     * @param seed           seeds every draw the model makes
     */
    public WideAreaLatencyModel(LatencyMatrix matrix, HostAssignment hosts, List<SlowPeriod> periods,
            SlowNodeModel knobs, double jitterFraction, long seed) {
        this.matrix = Objects.requireNonNull(matrix, "matrix");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.knobs = Objects.requireNonNull(knobs, "knobs");
        if (hosts.hosts() > matrix.hosts()) {
            throw new IllegalArgumentException("the assignment uses " + hosts.hosts() + " hosts but the matrix has "
                    + matrix.hosts());
        }
        this.jitterFraction = OneWayDelay.checkJitter(jitterFraction);
        int nodes = hosts.nodes();
        this.periods = new PeriodIndex(periods, nodes);
        this.freeAtNanos = new long[nodes];
        this.queues = new ServiceQueues(nodes);
        SplittableRandom root = new SplittableRandom(seed);
        this.jitterRandom = root.split();
        this.dropRandom = root.split();
        this.serviceRandom = new SplittableRandom[nodes];
        for (int i = 0; i < nodes; i++) {
            serviceRandom[i] = root.split();
        }
    }

    /**
     * Gives the model the world's clock, whose time is the send time of each message. Call once, before the first
     * message: {@code VirtualWorld} makes its scheduler after taking the model, so the clock cannot be a constructor
     * argument. Slow periods are in this clock's time, which for {@code VirtualScheduler} starts at 0.
     */
    public void attach(Clock worldClock) {
        Objects.requireNonNull(worldClock, "worldClock");
        if (clock != null) {
            throw new IllegalStateException("already attached to a clock");
        }
        clock = worldClock;
    }

    /** The node index of a virtual-world address ({@link VirtualAddresses}); -1 when it names none. */
    public static int nodeIndex(Address address) {
        return VirtualAddresses.index(address);
    }

    /**
     * The address of a client process on node {@code i}'s host. It is not a FIFO server: messages to it take the
     * network delay only.
     */
    public static Address clientAddress(int i) {
        return VirtualAddresses.of("client", i);
    }

    /** Node {@code i}'s client gateway: the same process (and so the same FIFO server) as the node. */
    public static Address gatewayAddress(int i) {
        return VirtualAddresses.of("gateway", i);
    }

    private static boolean isClient(Address a) {
        return a.host().charAt(0) == 'c';
    }

    /**
     * The delay from now until {@code to} has served the message, queueing included; advances {@code to}'s queue.
     * Call exactly once per message that is not {@link #drops dropped}. {@code ignored} is not used: see the class
     * comment.
     */
    @Override
    public long delayNanos(Address from, Address to, RandomGenerator ignored) {
        long now = now();
        int src = node(from);
        int dst = node(to);
        long arrival = now + networkNanos(src, dst);
        if (isClient(to)) {
            return arrival - now;
        }
        // An idle node, the common case, serves it on arrival; a busy one in the first gap it fits in, else last.
        long start = freeAtNanos[dst] <= arrival ? arrival : queues.idleFrom(dst, now, arrival);
        long service = knobs.baseServiceNanos() + extraNanos(dst, start < 0 ? freeAtNanos[dst] : start);
        if (start < 0 || !queues.fits(dst, start, start + service)) {
            start = Math.max(arrival, freeAtNanos[dst]);
        }
        long end = start + service;
        freeAtNanos[dst] = Math.max(freeAtNanos[dst], end);
        queues.add(dst, now, arrival, start, end);
        return end - now;
    }

    /**
     * A node's timer that falls due at {@code nowNanos} runs once the node has served every message that arrived by
     * then: a slow node's timers wait behind its queue as its message handlers do. A client is never busy.
     */
    @Override
    public long readyAtNanos(Address node, long nowNanos) {
        if (isClient(node)) {
            return nowNanos;
        }
        int n = node(node);
        // An idle node, the common case, without a look at its queue.
        return freeAtNanos[n] <= nowNanos ? nowNanos : queues.readyAt(n, nowNanos);
    }

    /**
     * Whether the message is lost because its receiver is in a drop period now. The network must ask this before
     * {@link #delayNanos} and, if it is true, discard the message without calling {@link #delayNanos}, so that a
     * lost message does not occupy the receiver's queue. Draws nothing when no drop period covers the receiver,
     * so a schedule without drops gives the same run whether or not the network asks. {@code ignored} is not used.
     *
     * <p>{@code VirtualNetwork} asks this before {@link #delayNanos}; a dropped message is never delayed.
     */
    @Override
    public boolean drops(Address from, Address to, RandomGenerator ignored) {
        node(from);
        int dst = node(to);
        if (isClient(to)) {
            return false;
        }
        double p = periods.dropProbability(dst, now());
        return p > 0 && dropRandom.nextDouble() < p;
    }

    /** Whether a slow period of {@code node} (of any effect) covers {@code atNanos}: for oracles and reports. */
    public boolean isSlow(int node, long atNanos) {
        checkNode(node);
        return periods.covered(node, atNanos);
    }

    /** The RTT between two nodes without jitter, queueing or slowness, in milliseconds: the oracle's lower bound. */
    public double rttMillis(int a, int b) {
        return hosts.rttMillis(matrix, a, b);
    }

    /** Number of nodes the model can carry. */
    public int nodes() {
        return hosts.nodes();
    }

    private long networkNanos(int src, int dst) {
        return OneWayDelay.nanos(rttMillis(src, dst), jitterFraction, jitterRandom);
    }

    private long extraNanos(int node, long atNanos) {
        SplittableRandom random = serviceRandom[node];
        long slow = periods.sampleExtraNanos(node, atNanos, random);
        if (slow != PeriodIndex.NOT_DELAYED) {
            return slow;
        }
        double p = knobs.healthyStallProbability();
        if (p > 0 && random.nextDouble() < p) {
            return knobs.healthyStall().sampleNanos(random);
        }
        return 0;
    }

    private long now() {
        if (clock == null) {
            throw new IllegalStateException("attach(world.scheduler()) before the first message");
        }
        return clock.nanoTime();
    }

    private int node(Address address) {
        int node = nodeIndex(address);
        if (node < 0 || node >= freeAtNanos.length) {
            throw new IllegalArgumentException(address + " is not one of the " + freeAtNanos.length
                    + " simulated nodes (the node index ends the host name)");
        }
        return node;
    }

    private void checkNode(int node) {
        if (node < 0 || node >= freeAtNanos.length) {
            throw new IndexOutOfBoundsException("node " + node + " outside 0.." + (freeAtNanos.length - 1));
        }
    }
}
