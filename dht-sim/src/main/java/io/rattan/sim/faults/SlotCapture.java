package io.rattan.sim.faults;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualWorld;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One host's many ids ({@link Attack#SLOT_CAPTURE}, docs/security.md, item 5): the liars and
 * {@link #SYBILS_PER_LIAR} times as many other nodes (which run the node code honestly: the host's further ids)
 * listen on one IPv6 /64, which the per-host bound counts as one host ({@link #host}); every {@link #EVERY_NANOS} each
 * live liar names every live node of that host to every live honest node of another host ({@code JOIN_INFO}), which
 * probes them and offers those that answer to its routing table. Each round, a live, joined node of another host
 * whose routing table holds more of that host's ids than the default per-host bound
 * ({@link NodeConfig#IDS_PER_IP_DEFAULT}) was captured (rule 9), counted once until it holds no more than that.
 */
final class SlotCapture {

    static final long EVERY_NANOS = 5_000_000_000L;
    /** The host's further ids per liar: with two liars, six ids on one host, three times the default bound. */
    static final int SYBILS_PER_LIAR = 2;

    private final VirtualWorld world;
    private final List<Integer> liars;
    private final Set<Integer> onHost;
    private final LiarSender sender;
    private final Set<Integer> captured = new HashSet<>();
    private Checker checker;

    /** {@code onHost}: the liars and the host's further ids, by node index. */
    SlotCapture(VirtualWorld world, List<Integer> liars, Set<Integer> onHost, LiarSender sender) {
        this.world = world;
        this.liars = liars;
        this.onHost = Set.copyOf(onHost);
        this.sender = sender;
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    /** Where node {@code index} listens in a run with this attack: on the one /64 if it is among {@code onHost}. */
    static String host(int index, Set<Integer> onHost) {
        return onHost.contains(index) ? "fd00:0:0:39::" + index : "node" + index;
    }

    /** The liars and the further ids of their host, which follow them in {@code drawOrder} ({@link Liars#drawOrder}). */
    static Set<Integer> onOneHost(Liars liars, List<Integer> drawOrder) {
        return Set.copyOf(drawOrder.subList(0, Math.min(drawOrder.size(), hostSize(liars, drawOrder.size()))));
    }

    /** How many of {@code nodes} the liars' host holds: each liar and its further ids. */
    static int hostSize(Liars liars, int nodes) {
        return liars.count(nodes) * (1 + SYBILS_PER_LIAR);
    }

    void checker(Checker checker) {
        this.checker = checker;
    }

    private void round() {
        Introductions hostToOthers = Introductions.of(world, onHost);
        check(hostToOthers.others());
        hostToOthers.send(world, liars, sender);
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    private void check(List<Integer> others) {
        int bound = NodeConfig.IDS_PER_IP_DEFAULT;
        for (int i : others) {
            long held = world.node(i).status().routingTable().stream()
                    .filter(c -> onHost.contains(VirtualAddresses.index(c.address()))).count();
            if (held <= bound) {
                captured.remove(i);
            } else if (captured.add(i) && checker != null) {
                checker.liarAchieved(Rule.SLOTS_CAPTURED, "node " + world.contact(i).id().shortHex() + "'s routing "
                        + "table holds " + held + " ids of one host, over the bound of " + bound);
            }
        }
    }
}
