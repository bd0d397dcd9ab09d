package io.rattan.sim.experiment;

import io.rattan.api.Id;
import io.rattan.core.client.OneHopImage;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
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
public final class OneHopClient {

    /** A client's image has converged once this many warm-up gets in a row taught it no new node. */
    public static final int WARM_UP_STILL_GETS = 20;
    /** The most warm-up gets a client makes, converged or not. */
    public static final int WARM_UP_MAX_GETS = 500;
    /** How long a client waits for one target before it passes the copy on to the next. */
    public static final long DIRECT_ATTEMPT_NANOS = 1_000_000_000L;

    private final int host;
    private final OneHopRouter router = new OneHopRouter(4096);
    // Ids only.
    private final Set<Id> probed = new HashSet<>();

    /** A client on node {@code host}'s host, its image empty. */
    public OneHopClient(int host) {
        this.host = host;
    }

    /** See {@link OneHopRouter#targets}; {@code own} is this host's node. */
    public List<Contact> targets(Id key, int replicas, Contact own) {
        return router.targets(key, replicas, own);
    }

    /** See {@link OneHopRouter#hedgeWaitsNanos}. */
    public long[] hedgeWaitsNanos(List<Contact> targets, long endToEndNanos) {
        return router.hedgeWaitsNanos(targets, endToEndNanos, id -> -1);
    }

    /** An answer to a copy routed through gateway {@code via}: it teaches the image, not the delay to {@code via}. */
    public void routedAnswer(Contact via, Message reply) {
        router.answered(via, reply, 0, false);
    }

    /** An answer from {@code target} after {@code nanos}. */
    public void answered(Contact target, Message reply, long nanos) {
        router.answered(target, reply, nanos, reply instanceof GetReply g && g.hops() == 0);
    }

    /**
     * Nodes named in {@code reply} whose delay this client does not know and has not probed yet; each is returned
     * once, so that it is probed once.
     */
    public List<Contact> toProbe(Message reply) {
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
    public void probed(Contact node, long nanos) {
        router.measured(node, nanos);
    }

    /** The node whose host this client sits on. */
    public int host() {
        return host;
    }

    /** What the client knows of the ring. */
    public OneHopImage image() {
        return router.image();
    }
}
