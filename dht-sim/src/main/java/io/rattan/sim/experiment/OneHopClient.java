package io.rattan.sim.experiment;

import io.rattan.core.client.OneHopImage;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A one-hop client on one node's host: a {@link OneHopRouter} (the same logic a node's gateway uses for
 * {@code onehop=true}) with the host it sits on. Its copies go to the targets' client ports, so a target that
 * serves the get itself answers with no hops. It probes each node an answer names once (a ping to its client port),
 * so that it knows which of a key's replicas is nearest before it first asks for that key: without the probes it
 * knows the delay only to nodes it happened to ask, and asks a far replica half the time.
 */
final class OneHopClient {

    private final int host;
    private final OneHopRouter router = new OneHopRouter(4096);
    // Ids only.
    private final Set<Id> probed = new HashSet<>();

    OneHopClient(int host) {
        this.host = host;
    }

    /** See {@link OneHopRouter#targets}; {@code own} is this host's node. */
    List<Contact> targets(Id key, int replicas, Contact own) {
        return router.targets(key, replicas, own);
    }

    /** See {@link OneHopRouter#hedgeWaitsNanos}. */
    long[] hedgeWaitsNanos(List<Contact> targets, long endToEndNanos) {
        return router.hedgeWaitsNanos(targets, endToEndNanos, id -> -1);
    }

    /** An answer to a copy routed through gateway {@code via}: it teaches the image, not the delay to {@code via}. */
    void routedAnswer(Contact via, Message reply) {
        router.answered(via, reply, 0, false);
    }

    /** An answer from {@code target} after {@code nanos}. */
    void answered(Contact target, Message reply, long nanos) {
        router.answered(target, reply, nanos, reply instanceof GetReply g && g.hops() == 0);
    }

    /**
     * Nodes named in {@code reply} whose delay this client does not know and has not probed yet; each is returned
     * once, so that it is probed once.
     */
    List<Contact> toProbe(Message reply) {
        List<Contact> out = new ArrayList<>();
        if (probed.size() > 2 * Math.max(1, router.image().size())) {
            // Forgotten nodes: one learned again is probed again.
            probed.removeIf(id -> !router.image().contains(id));
        }
        if (reply instanceof GetReply g) {
            for (Contact c : g.holders()) {
                if (!router.knowsDelayTo(c.id()) && probed.add(c.id())) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** A probe's round trip to {@code node}. */
    void probed(Contact node, long nanos) {
        router.measured(node, nanos);
    }

    int host() {
        return host;
    }

    OneHopImage image() {
        return router.image();
    }
}
