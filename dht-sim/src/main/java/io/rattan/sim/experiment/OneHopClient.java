package io.rattan.sim.experiment;

import io.rattan.core.client.OneHopImage;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * A one-hop client on one node's host: a {@link OneHopRouter} (the same logic a node's gateway uses for
 * {@code onehop=true}) with the host it sits on. Its copies go to the targets' client ports, so a target that
 * serves the get itself answers with no hops.
 */
final class OneHopClient {

    private final int host;
    private final OneHopRouter router = new OneHopRouter(4096);

    OneHopClient(int host) {
        this.host = host;
    }

    /** See {@link OneHopRouter#targets}; {@code own} is this host's node. */
    List<Contact> targets(Id key, int replicas, Contact own) {
        return router.targets(key, replicas, own);
    }

    /** An answer from {@code target} after {@code nanos}. */
    void answered(Contact target, Message reply, long nanos) {
        router.answered(target, reply, nanos, reply instanceof GetReply g && g.hops() == 0);
    }

    int host() {
        return host;
    }

    OneHopImage image() {
        return router.image();
    }
}
