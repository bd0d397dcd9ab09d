package io.rattan.core.node;

import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;

/**
 * Who may be sent a tombstone, which carries what its remove sent (a client's proof for that one value, or from a
 * client of before proofs, its secret itself): a replica of its key or the next
 * beyond in this node's view, and only where that view holds every node closer to the key than the peer (a node
 * whose leaf set ends short of a key takes a far peer for one of its nearest). Asked by a digest's answer and (without
 * the last clause) by a replica read's, where the asker, not this node, chose whom to ask. (The stray check, which
 * offers what a node holds off its replica sets, does not ask it: withholding there left removed values on replicas,
 * docs/security.md.) Owned by the node's event loop.
 */
final class SecretGuard {

    private final ReplicaPairs pairs;
    private final ViewReach reach;

    SecretGuard(ReplicaPairs pairs, ViewReach reach) {
        this.pairs = pairs;
        this.reach = reach;
    }

    /**
     * Whether {@code peer} may be sent {@code r}: anything but an unowned tombstone (an owned one holds no secret), and
     * such a tombstone only if this node places the peer among the key's replicas and the next.
     */
    boolean mayLearn(StoredRecord r, Contact peer) {
        return holdsNoSecret(r) || pairs.replicates(r.key(), peer) && reach.knowsAllCloser(r.key(), peer);
    }

    /**
     * Whether {@code peer} may read {@code r} in a quorum get's replica read: as {@link #mayLearn}, but without the
     * view's reach. A replica whose leaf set ends short of the key cannot tell a true replica asking from a far peer;
     * refusing both left honest quorum reads partial (docs/security.md, item 2), so such a replica answers both.
     */
    boolean mayRead(StoredRecord r, Contact peer) {
        return holdsNoSecret(r) || pairs.replicates(r.key(), peer);
    }

    /** Anything but an unowned tombstone (an owned one holds no secret). */
    private static boolean holdsNoSecret(StoredRecord r) {
        return !r.tombstone() || r.isOwned();
    }
}
