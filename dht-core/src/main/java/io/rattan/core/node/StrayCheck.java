package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.msg.Messages.Digest;
import io.rattan.core.msg.Messages.DigestEntry;
import io.rattan.core.msg.Messages.DigestWant;
import io.rattan.core.net.Contact;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stray check of {@link Repair}'s anti-entropy rounds: records this node holds although it is no replica of their
 * keys are offered to a replica that lacks them. A cursor walks the whole store over many rounds, a bounded number of
 * records per round, read off the node's loop. Owned by the node's event loop.
 */
final class StrayCheck {

    private static final Logger log = LoggerFactory.getLogger(StrayCheck.class);

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final Function<Contact, ReplicaStream> streams;
    private Store.Cursor strayCursor = Store.Cursor.START;
    private boolean strayScanning;

    /** @param streams the stream of copies owed to a peer, shared with {@link Repair}'s sessions */
    StrayCheck(NodeContext ctx, Membership members, LocalReplica replica, Function<Contact, ReplicaStream> streams) {
        this.ctx = ctx;
        this.members = members;
        this.replica = replica;
        this.streams = streams;
    }

    /**
     * Offers {@code peer} a page of stray records: those this node holds although it is no replica, of which the
     * peer is one (a copy pushed here by a replica that missed a remove, say). Range digests cover only keys both
     * ends replicate, so without this a tombstone would never reach such a copy. Bounded scan per round, read off the
     * loop; one at a time.
     */
    void round(Contact peer) {
        if (strayScanning) {
            return;
        }
        strayScanning = true;
        Store.Cursor from = strayCursor;
        int budget = 4 * ctx.config().digestEntriesMax();
        replica.offLoop(() -> strayPages(from, budget), (seen, failure) -> {
            strayScanning = false;
            if (failure != null) {
                log.warn("{} stray check failed: {}", ctx.tag(), failure.toString());
            } else {
                offerStrays(peer, seen);
            }
        });
    }

    /**
     * Off the loop: the records a stray check may examine, in order from {@code from}, whole pages until at least
     * {@code budget}, wrapping once past the end of the store.
     */
    private List<StoredRecord> strayPages(Store.Cursor from, int budget) {
        List<StoredRecord> seen = new ArrayList<>();
        Store.Cursor cursor = from;
        boolean wrapped = false;
        while (seen.size() < budget) {
            List<StoredRecord> page = replica.scan(cursor, LocalReplica.SCAN_PAGE);
            if (page.isEmpty()) {
                if (wrapped || cursor.equals(Store.Cursor.START)) {
                    break;
                }
                wrapped = true;
                cursor = Store.Cursor.START;
                continue;
            }
            seen.addAll(page);
            StoredRecord last = page.get(page.size() - 1);
            cursor = new Store.Cursor(last.key(), last.valueHash());
        }
        return seen;
    }

    /** On the loop: offers the strays among {@code seen}, a digest's worth at most; the cursor stops at the last. */
    private void offerStrays(Contact peer, List<StoredRecord> seen) {
        List<DigestEntry> entries = new ArrayList<>();
        Store.Cursor cursor = Store.Cursor.START;
        for (StoredRecord r : seen) {
            cursor = new Store.Cursor(r.key(), r.valueHash());
            List<Contact> set = members.replicaSet(r.key());
            if (set.contains(peer) && !set.contains(ctx.self())) {
                entries.add(new DigestEntry(r.key(), r.valueHash(), r.tombstone()));
                if (entries.size() >= ctx.config().digestEntriesMax()) {
                    break;
                }
            }
        }
        strayCursor = cursor;
        if (entries.isEmpty()) {
            return;
        }
        ctx.outbox().request(peer, new Digest(entries), nanos(ctx.config().rtoMaxMillis()), ReplyHandler.of(
                reply -> {
                    if (reply.body() instanceof DigestWant w) {
                        ReplicaStream s = streams.apply(peer);
                        replica.readEach(ReplicaStream.Ref.of(w.entries()), (held, failure) -> {
                            if (failure == null) {
                                held.forEach(r -> r.ifPresent(s::add));
                            }
                        });
                    }
                },
                () -> members.peerTimedOut(peer)));
    }
}
