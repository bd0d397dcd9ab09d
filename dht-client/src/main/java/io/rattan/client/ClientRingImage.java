package io.rattan.client;

import io.rattan.api.Address;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.client.OneHopRouter;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The client's own image of the ring, for {@link GetOptions#oneHop() one-hop} gets: core's {@link OneHopRouter}
 * (the image, and the round trip measured to each replica) plus the gateways of the replicas it names. It is loaded
 * from a gateway's view of the ring at start and refreshed about every minute ({@link RingLoader}), unless the client
 * was built with {@code loadRing(false)}; and it learns from answers: every one-hop get asks the answering node to
 * name the key's holders, each a contact with its gateway port, and they add to and correct the image (LH*'s image
 * adjustment, ZHT's lazy membership). A replica whose gateway fails a copy is forgotten until an answer names it again.
 *
 * <p>Confined to the client's race loop, like the {@link HedgeThreshold}s.
 */
final class ClientRingImage {

    /** Most nodes the image keeps: the replicas of a working set of keys, and a connection to each at most. */
    static final int NODES_MAX = 1024;
    /** How many replicas a key has, until an answer says (the holders it names are the key's k replicas). */
    private static final int REPLICAS_DEFAULT = NodeConfig.defaults().replicas();

    private final ClientRuntime runtime;
    private final OneHopRouter router = new OneHopRouter(NODES_MAX);
    // One-hop gets are much faster than routed ones: their own threshold keeps routed gets from raising it.
    private final HedgeThreshold threshold = HedgeThreshold.defaults();
    private int replicas = REPLICAS_DEFAULT;

    ClientRingImage(ClientRuntime runtime) {
        this.runtime = runtime;
    }

    HedgeThreshold threshold() {
        return threshold;
    }

    /**
     * Where the copies of a get for {@code key} go, first copy first: the key's replicas the image knows, the one
     * measured fastest first, leaving out those without a gateway and those whose gateway refused a connection
     * lately. Empty while the image knows none: the get then goes through the configured gateways.
     */
    List<Contact> targets(Id key) {
        long now = System.nanoTime();
        List<Contact> targets = new ArrayList<>();
        for (Contact c : edgeLast(key, router.replicas(key, replicas, id -> -1))) {
            if (c.hasGateway() && runtime.learnedGateway(c.gatewayAddress()).isAvailable(now)) {
                targets.add(c);
            }
        }
        return targets;
    }

    /**
     * {@code replicas} with the one farthest from {@code key} last. With a small leaf set the replica at the edge of
     * a key's replica set may not see past the key and forwards the get (core's {@code AnswerArcs} learns that only
     * from a forward per node and side); the nearer ones always answer. So the first copy goes to the fastest of
     * those, and the edge replica serves only as a hedge or a fallback: with a loaded ring this is what keeps a new
     * client's first gets at one hop.
     */
    private static List<Contact> edgeLast(Id key, List<Contact> replicas) {
        if (replicas.size() < 2) {
            return replicas;
        }
        Contact edge = replicas.get(0);
        for (Contact c : replicas) {
            if (c.id().distanceTo(key).compareTo(edge.id().distanceTo(key)) > 0) {
                edge = c;
            }
        }
        List<Contact> ordered = new ArrayList<>(replicas);
        ordered.remove(edge);
        ordered.add(edge);
        return ordered;
    }

    /**
     * The hedge waits of a get to {@code targets} (see {@link OneHopRouter#hedgeWaitsNanos}): the hedges follow the
     * last of the copies sent at once. None unless {@code options.hedge()}.
     */
    long[] hedgeWaitsNanos(List<Contact> targets, GetOptions options) {
        if (!options.hedge()) {
            return new long[0];
        }
        int last = Math.max(0, Math.min(options.gateways(), targets.size()) - 1);
        return router.hedgeWaitsNanos(targets.subList(last, targets.size()), threshold.thresholdNanos(), id -> -1);
    }

    /**
     * A copy of a get for {@code key} sent straight to {@code target}'s gateway answered after {@code nanos}. If the
     * target forwarded it, the target is left out of later gets for keys as far out as this one (the answering node
     * counts it a replica, the target itself does not: see core's {@code AnswerArcs}).
     */
    void answered(Id key, Contact target, Message reply, long nanos) {
        // Answered at the gateway itself (no hop): only then is the time a round trip to that replica.
        router.answered(key, target, reply, nanos, reply instanceof GetReply g && g.hops() == 0);
        learned(reply);
    }

    /** A copy routed through a configured gateway answered: its holders teach the image. */
    void routedAnswered(Message reply) {
        if (reply instanceof GetReply g && g.status() == Status.OK) {
            router.image().learn(g.holders());
            learned(reply);
        }
    }

    /**
     * A load of the ring named {@code nodes} (those with a gateway) and {@code replicas}, k: the image learns them all,
     * so that the first one-hop get of any key goes straight to its replicas. Nodes the image knew but the load did
     * not name stay until a miss or a failure corrects them.
     */
    void loaded(List<Contact> nodes, int replicas) {
        List<Contact> withGateway = new ArrayList<>();
        for (Contact c : nodes) {
            if (c.hasGateway()) {
                withGateway.add(c);
            }
        }
        router.image().learn(withGateway);
        if (replicas > 0) {
            this.replicas = replicas;
        }
    }

    /** {@code target}'s gateway failed a copy: routed around from now on, until an answer names it again. */
    void failed(Contact target) {
        router.forget(target);
    }

    /** The nodes the image holds; for tests. */
    int size() {
        return router.image().size();
    }

    private void learned(Message reply) {
        if (reply instanceof GetReply g && g.status() == Status.OK && !g.holders().isEmpty()) {
            replicas = g.holders().size();
        }
        // The image forgets nodes as it learns others: close the connections to those it no longer holds.
        if (runtime.learnedCount() > router.image().size() + REPLICAS_DEFAULT) {
            Set<Address> keep = new HashSet<>();
            for (Contact c : router.image().closest(Id.ZERO, router.image().size())) {
                if (c.hasGateway()) {
                    keep.add(c.gatewayAddress());
                }
            }
            runtime.retainLearned(keep::contains);
        }
    }
}
