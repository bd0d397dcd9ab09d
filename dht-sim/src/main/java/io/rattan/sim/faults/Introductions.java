package io.rattan.sim.faults;

import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * How liars push a group of nodes on everyone else ({@link ClockLies}, {@link SlotCapture}): the live, joined nodes of
 * a world split into the group and the others, and each live, joined liar naming the group to every other node
 * ({@code JOIN_INFO}), which probes them and offers those that answer to its leaf set and table.
 *
 * @param group  the contacts of the group's live, joined nodes
 * @param others the indexes of the other live, joined nodes
 */
record Introductions(List<Contact> group, List<Integer> others) {

    /** The live, joined nodes of {@code world}, split by {@code group} (node indexes). */
    static Introductions of(VirtualWorld world, Set<Integer> group) {
        List<Contact> in = new ArrayList<>();
        List<Integer> out = new ArrayList<>();
        for (int i : world.liveIndexes()) {
            if (!world.node(i).isJoined()) {
                continue;
            }
            if (group.contains(i)) {
                in.add(world.contact(i));
            } else {
                out.add(i);
            }
        }
        return new Introductions(in, out);
    }

    /** Each live, joined one of {@code liars} names the group to every other node. */
    void send(VirtualWorld world, List<Integer> liars, LiarSender sender) {
        for (int liar : liars) {
            if (world.isAlive(liar) && world.node(liar).isJoined()) {
                for (int i : others) {
                    sender.send(liar, world.contact(i).address(), new JoinInfo(group, false));
                }
            }
        }
    }
}
