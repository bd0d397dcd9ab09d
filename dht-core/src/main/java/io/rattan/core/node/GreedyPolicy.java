package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.List;

/** The most key-space progress: the candidate closest to the key, whatever its delay. */
final class GreedyPolicy implements NextHopPolicy {

    @Override
    public Contact choose(Id key, Id self, List<Contact> candidates, RttView rtts) {
        Contact best = candidates.get(0);
        for (Contact c : candidates) {
            if (c.id().isCloserTo(key, best.id())) {
                best = c;
            }
        }
        return best;
    }
}
