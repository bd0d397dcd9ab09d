package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.net.Contact;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The copies this node asked leaf-set members for, in answer to their digests, of keys it replicates: the one way a
 * member that is no replica of a key in this node's view (a stray's holder, a node whose view differs after churn or
 * a partition) may hand it a copy ({@link Membership#mayReplicate} admits only the key's replicas and the next
 * beyond). A member cannot make this node hold keys it does not replicate, nor anything it did not ask for. Bounded
 * per member and in members; an ask is forgotten after {@link #TTL_NANOS}. Owned by the node's event loop.
 */
final class SolicitedCopies {

    /** How long an ask stands: a stream's pages wait behind others and are resent, so minutes, not an RTO. */
    static final long TTL_NANOS = 300_000_000_000L;
    /** Members whose offers are remembered; the least recently asked is forgotten first. */
    static final int PEERS_MAX = 64;
    /** Asks remembered per member; the oldest are forgotten first. */
    static final int PER_PEER_MAX = 8_192;

    private record Ask(Id key, Bytes slot) {
    }

    private final NodeContext ctx;
    private final Membership members;
    private final Map<Contact, LinkedHashMap<Ask, Long>> byPeer = new LinkedHashMap<>(16, 0.75f, true);

    SolicitedCopies(NodeContext ctx, Membership members) {
        this.ctx = ctx;
        this.members = members;
    }

    /** This node asked {@code peer}, a member, for {@code wanted}: remembers those of keys it replicates. */
    void asked(Contact peer, List<DigestEntry> wanted) {
        if (wanted.isEmpty() || !members.isLeafMember(peer)) {
            return;
        }
        long expires = ctx.now() + TTL_NANOS;
        LinkedHashMap<Ask, Long> asks = null;
        // A digest lists a key's entries together: its replica set is ranked once, not once per entry.
        Id key = null;
        boolean replicates = false;
        for (DigestEntry w : wanted) {
            if (!w.key().equals(key)) {
                key = w.key();
                replicates = members.replicaSetAndNext(key).contains(ctx.self());
            }
            if (!replicates) {
                continue;
            }
            if (asks == null) {
                asks = byPeer.computeIfAbsent(peer, p -> new LinkedHashMap<>());
            }
            asks.remove(new Ask(w.key(), w.slot()));
            asks.put(new Ask(w.key(), w.slot()), expires);
            if (asks.size() > PER_PEER_MAX) {
                Iterator<Ask> oldest = asks.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
        }
        if (byPeer.size() > PEERS_MAX) {
            Iterator<Contact> least = byPeer.keySet().iterator();
            least.next();
            least.remove();
        }
    }

    /** Whether this node asked {@code peer} for the record of {@code key} in {@code slot}, and the ask still stands. */
    boolean asked(Contact peer, Id key, Bytes slot) {
        LinkedHashMap<Ask, Long> asks = byPeer.get(peer);
        if (asks == null) {
            return false;
        }
        Long expires = asks.get(new Ask(key, slot));
        if (expires == null) {
            return false;
        }
        if (expires - ctx.now() <= 0) {
            asks.remove(new Ask(key, slot));
            return false;
        }
        return true;
    }
}
