package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * A gateway's answer to a client's {@link ClientRing}: the nodes it knows (itself, its leaf set, its routing table),
 * in id order after the placemark. Read from what the node holds, never routed: a client's image needs the nodes and
 * their gateways, and the misses of its one-hop gets correct the rest.
 */
final class RingPage {

    /** Most nodes one page names, whatever the client asks: about 20 KB of contacts. */
    static final int NODES_MAX = 256;

    private RingPage() {
    }

    /** The page {@code request} asks for, of {@code known} (duplicates and nodes without a gateway left out). */
    static RingReply answer(ClientRing request, Collection<Contact> known, int replicas) {
        TreeMap<Id, Contact> ring = new TreeMap<>();
        for (Contact c : known) {
            if (c.hasGateway()) {
                ring.putIfAbsent(c.id(), c);
            }
        }
        int max = request.maxNodes() == 0 ? NODES_MAX : Math.min(request.maxNodes(), NODES_MAX);
        Collection<Contact> after = request.placemark().isEmpty() ? ring.values()
                : ring.tailMap(Id.fromBytes(request.placemark().toByteArray()), false).values();
        List<Contact> page = new ArrayList<>(Math.min(max, after.size()));
        for (Contact c : after) {
            if (page.size() == max) {
                break;
            }
            page.add(c);
        }
        boolean more = page.size() < after.size();
        Bytes mark = more ? Bytes.wrap(page.get(page.size() - 1).id().toBytes()) : Bytes.EMPTY;
        return new RingReply(page, mark, replicas);
    }
}
