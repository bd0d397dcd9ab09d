package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * Chooses a get's next hop among the neighbours that make progress toward the key (each strictly closer to it than
 * this node). Pure: the same inputs give the same choice. Public so that bench's microbenchmark can time a choice;
 * the node picks its policy per get by the get's routing mode.
 */
public interface NextHopPolicy {

    /** The most key-space progress, whatever the delay ({@code RoutingMode.GREEDY}). */
    static NextHopPolicy greedy() {
        return new GreedyPolicy();
    }

    /** Bamboo's delay-aware rule, its knee learned from the RTTs this node observes ({@code DELAY_AWARE}). */
    static NextHopPolicy delayAware() {
        return new DelayAwarePolicy();
    }

    /**
     * @param key        the key routed toward
     * @param self       this node's id
     * @param candidates usable neighbours strictly closer to {@code key} than {@code self}; not empty
     * @param rtts       what this node has measured of its neighbours' delays
     * @return one of {@code candidates}
     */
    Contact choose(Id key, Id self, List<Contact> candidates, RttView rtts);
}
