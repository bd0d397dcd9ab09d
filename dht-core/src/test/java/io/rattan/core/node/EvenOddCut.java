package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualWorld;

/** Cuts every link between the two halves of a virtual world (even and odd node numbers) while {@link #cut} is set. */
final class EvenOddCut extends LosingLinks {

    boolean cut;

    @Override
    boolean lost(Address from, Address to) {
        return cut && VirtualAddresses.index(from) % 2 != VirtualAddresses.index(to) % 2;
    }

    /** Leaf-set members, over all nodes, on the other side of the cut. */
    static int crossing(VirtualWorld world) {
        int n = 0;
        for (int i = 0; i < world.size(); i++) {
            for (Contact c : world.node(i).status().leafSet()) {
                n += VirtualAddresses.index(c.address()) % 2 != i % 2 ? 1 : 0;
            }
        }
        return n;
    }
}
