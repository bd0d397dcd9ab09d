package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.net.Contact;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stray check of {@link Repair}'s anti-entropy rounds, and of each change of its leaf set's members: records this
 * node holds although it is no replica of their keys are offered to their replicas (one member a round; every usable
 * member at a change), each of which asks for those it lacks. A cursor walks the whole store over many rounds, a bounded
 * number of records per round, read off the node's loop. Copies that a node which is no replica of their keys pushed
 * here are passed on to the keys' other replicas ({@link #passOn}). Owned by the node's event loop.
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
     * Offers each of {@code peers} a digest of the stray records it is a replica of: those this node holds although
     * it is no replica (a copy pushed here by a replica that missed a remove; a put acknowledged here during a
     * partition, by a side that did not see the key's true replicas). Range digests cover only keys both ends
     * replicate, so without this a tombstone would never reach such a copy. An anti-entropy round offers one member;
     * a change of members every usable one ({@link #afterViewChange}). Bounded scan per round, read off the loop; one at a
     * time.
     */
    void round(List<Contact> peers) {
        if (strayScanning || peers.isEmpty()) {
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
                offerStrays(peers, seen);
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
            cursor = new Store.Cursor(last.key(), last.slot());
        }
        return seen;
    }

    /**
     * A round toward every usable leaf-set member, at a change of this node's leaf-set members (a member that came
     * back may be a true replica of strays this node took while a partition kept them apart). Offered one member a
     * round, such strays would reach their replicas only seconds after the heal, while gets read from those replicas.
     * Offering every member every round would cost each round a digest per member for as long as strays stay (they
     * stay until they expire).
     */
    void afterViewChange() {
        List<Contact> peers = new ArrayList<>();
        for (Contact c : members.leafMembers()) {
            if (members.usable(c)) {
                peers.add(c);
            }
        }
        round(peers);
    }

    /**
     * On the loop: offers the strays among {@code seen} to those of {@code peers} that replicate them, a digest's
     * worth to each at most; the cursor stops at the last record offered, or examined.
     */
    private void offerStrays(List<Contact> peers, List<StoredRecord> seen) {
        Map<Contact, List<DigestEntry>> offers = new LinkedHashMap<>();
        Store.Cursor cursor = Store.Cursor.START;
        boolean full = false;
        for (int i = 0; i < seen.size() && !full; i++) {
            StoredRecord r = seen.get(i);
            cursor = new Store.Cursor(r.key(), r.slot());
            List<Contact> set = members.replicaSet(r.key());
            if (set.contains(ctx.self())) {
                continue;
            }
            for (Contact c : set) {
                if (peers.contains(c)) {
                    List<DigestEntry> entries = offers.computeIfAbsent(c, x -> new ArrayList<>());
                    entries.add(OwnedRecords.digestEntry(r));
                    full |= entries.size() >= ctx.config().digestEntriesMax();
                }
            }
        }
        strayCursor = cursor;
        offers.forEach(this::offer);
    }

    private void offer(Contact peer, List<DigestEntry> entries) {
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

    /**
     * Copies new here from {@code from}, which is no replica of their keys in this node's view (nor is a suspect: it
     * may be cut off from the others), are owed to the keys' other replicas: a copy stored off its set comes back one
     * replica at a time, and the others would wait for their anti-entropy turns.
     */
    void passOn(Contact from, List<StoredRecord> fresh) {
        if (ctx.stopped()) {
            return;
        }
        for (StoredRecord r : fresh) {
            List<Contact> set = members.replicaSet(r.key());
            if (!set.contains(ctx.self()) || set.stream().anyMatch(c -> c.id().equals(from.id()))) {
                continue;
            }
            for (Contact c : set) {
                if (!c.equals(ctx.self()) && !c.id().equals(from.id())) {
                    streams.apply(c).add(r);
                }
            }
        }
    }
}
