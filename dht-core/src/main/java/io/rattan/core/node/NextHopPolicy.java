package io.rattan.core.node;

import io.rattan.core.id.Id;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * Chooses a get's next hop among the neighbours that make progress toward the key (each strictly closer to it than
 * this node). Pure: the same inputs give the same choice.
 */
interface NextHopPolicy {

    /**
     * @param key        the key routed toward
     * @param self       this node's id
     * @param candidates usable neighbours strictly closer to {@code key} than {@code self}; not empty
     * @param rtts       what this node has measured of its neighbours' delays
     * @return one of {@code candidates}
     */
    Contact choose(Id key, Id self, List<Contact> candidates, RttView rtts);

    /** Key-space progress of moving from {@code self} to {@code c}: how much closer {@code c} is to the key. */
    static double progress(Id key, Id self, Contact c) {
        return self.distanceTo(key).toDouble() - c.id().distanceTo(key).toDouble();
    }
}
