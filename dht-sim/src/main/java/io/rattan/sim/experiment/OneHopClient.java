package io.rattan.sim.experiment;

import io.rattan.core.client.OneHopImage;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A one-hop client on one node's host: it sends each get straight to a node its {@link OneHopImage} says holds the
 * key, preferring the replica it has measured fastest, and learns the image and the replicas' delays from the
 * answers only. With an empty image it uses its own host's node as gateway, like any client.
 */
final class OneHopClient {

    /** Weight of a new delay sample, as an EWMA. */
    private static final double ALPHA = 0.25;

    private final int host;
    private final OneHopImage image = new OneHopImage(4096);
    // Looked up by id only.
    private final Map<Id, Double> delayNanos = new HashMap<>();

    OneHopClient(int host) {
        this.host = host;
    }

    /**
     * Where copies of a get for {@code key} go, first copy first: the key's replicas in the image, those with a
     * measured delay fastest first, then the others closest to the key first; this host's node when none is known.
     */
    List<Contact> targets(Id key, int replicas, Contact own) {
        List<Contact> near = image.closest(key, replicas);
        List<Contact> known = new ArrayList<>();
        List<Contact> unknown = new ArrayList<>();
        for (Contact c : near) {
            (delayNanos.containsKey(c.id()) ? known : unknown).add(c);
        }
        known.sort((a, b) -> Double.compare(delayNanos.get(a.id()), delayNanos.get(b.id())));
        known.addAll(unknown);
        if (!known.contains(own)) {
            known.add(own);
        }
        return known;
    }

    /** An answer from {@code target} after {@code nanos}: learn the holders it names, or forget it if it failed. */
    void answered(Contact target, Message reply, long nanos) {
        if (reply instanceof GetReply g && g.status() == Status.OK) {
            image.learn(g.holders());
            if (g.hops() == 0) {
                // Answered without forwarding: the delay is this client's round trip to it, service included.
                delayNanos.merge(target.id(), (double) nanos, (old, now) -> old + ALPHA * (now - old));
            }
        } else {
            image.forget(target.id());
            delayNanos.remove(target.id());
        }
    }

    int host() {
        return host;
    }

    OneHopImage image() {
        return image;
    }
}
