package io.rattan.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.node.ReplicaView;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What a real node's own view holds, read on its event loop, for the tests that wait for a view to change. */
final class NodeViews {

    private NodeViews() {
    }

    /** The ids in {@code node}'s leaf set, suspects included. */
    static List<Id> leafIds(RattanNode node) {
        try {
            ReplicaView view = node.call(n -> n.replicaView(n.self().id())).get(30, TimeUnit.SECONDS);
            return view.leafSet().stream().map(Contact::id).toList();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
