package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Messages.Digest;
import io.rattan.core.msg.Messages.DigestEntry;
import io.rattan.core.msg.Messages.DigestWant;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.net.Contact;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every record on its k replicas: pushes records to the replicas a leaf-set change added, runs anti-entropy
 * rounds with the leaf set, and hands every record off when the node leaves. Owned by the node's event loop.
 */
final class Repair {

    private static final Logger log = LoggerFactory.getLogger(Repair.class);
    private static final long REPAIR_DELAY_NANOS = 200_000_000L;

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private Set<Id> repairedView = new HashSet<>();
    private boolean repairScheduled;
    private Store.Cursor antiEntropyCursor = Store.Cursor.START;

    Repair(NodeContext ctx, Membership members, LocalReplica replica) {
        this.ctx = ctx;
        this.members = members;
        this.replica = replica;
    }

    /** The leaf set changed: repair soon, once (a join changes the leaf set many times in a burst). */
    void leafSetChanged() {
        if (repairScheduled || ctx.stopped()) {
            return;
        }
        repairScheduled = true;
        ctx.scheduler().schedule(REPAIR_DELAY_NANOS, this::repair);
    }

    /**
     * Pushes every record whose replica set gained members since the last repair to those members. Of the old
     * replicas still present, only the one closest to the key pushes, so a change costs one copy per new replica;
     * anti-entropy catches what a disagreement of views misses.
     */
    private void repair() {
        repairScheduled = false;
        if (ctx.stopped()) {
            return;
        }
        Set<Id> oldView = repairedView;
        Set<Id> newView = new HashSet<>();
        for (Contact c : members.leafMembers()) {
            newView.add(c.id());
        }
        if (newView.equals(oldView)) {
            return;
        }
        repairedView = newView;
        List<Id> oldIds = new ArrayList<>(oldView);
        oldIds.add(ctx.self().id());
        ReplicaPushes pushes = new ReplicaPushes(ctx, replica);
        replica.forEachRecord(r -> {
            List<Id> before = closestIds(r.key(), oldIds, ctx.config().replicas());
            if (!pushesAfterChange(before, newView)) {
                return;
            }
            for (Contact c : members.replicaSet(r.key())) {
                if (!c.equals(ctx.self()) && !before.contains(c.id())) {
                    pushes.add(c, r);
                }
            }
        });
        pushes.flush();
    }

    /** Whether this node is the closest of a record's old replicas ({@code before}) that are still present. */
    private boolean pushesAfterChange(List<Id> before, Set<Id> newView) {
        for (Id id : before) {
            if (id.equals(ctx.self().id()) || newView.contains(id)) {
                return id.equals(ctx.self().id());
            }
        }
        return true;
    }

    private static List<Id> closestIds(Id key, List<Id> ids, int n) {
        List<Id> sorted = new ArrayList<>(ids);
        sorted.sort((a, b) -> a.equals(b) ? 0 : a.isCloserTo(key, b) ? -1 : 1);
        return sorted.size() > n ? sorted.subList(0, n) : sorted;
    }

    /**
     * One anti-entropy round: tell a random leaf-set neighbour which records (values and tombstones) it should hold
     * as we see it, from a rotating cursor; it answers with the ones it lacks, which we push.
     */
    void antiEntropyRound() {
        List<Contact> leaves = members.leafMembers();
        if (leaves.isEmpty()) {
            return;
        }
        Contact peer = leaves.get(ctx.random().nextInt(leaves.size()));
        List<DigestEntry> entries = digestFor(peer);
        if (entries.isEmpty()) {
            return;
        }
        ctx.outbox().request(peer, new Digest(entries), nanos(ctx.config().rtoMaxMillis()), ReplyHandler.of(
                reply -> {
                    if (reply.body() instanceof DigestWant w) {
                        ReplicaPushes pushes = new ReplicaPushes(ctx, replica);
                        for (DigestEntry d : w.entries()) {
                            replica.read(d.key(), d.valueHash()).ifPresent(r -> pushes.add(peer, r));
                        }
                        pushes.flush();
                    }
                },
                () -> members.peerTimedOut(peer)));
    }

    /** The next digest for {@code peer}: records it should hold, from where the last round stopped, wrapping once. */
    private List<DigestEntry> digestFor(Contact peer) {
        List<DigestEntry> entries = new ArrayList<>();
        Store.Cursor cursor = antiEntropyCursor;
        int scanned = 0;
        int scanBudget = 4 * ctx.config().digestEntriesMax();
        boolean wrapped = false;
        outer:
        while (scanned < scanBudget) {
            List<StoredRecord> page = replica.scan(cursor, LocalReplica.SCAN_PAGE);
            if (page.isEmpty()) {
                if (wrapped || cursor.equals(Store.Cursor.START)) {
                    break;
                }
                wrapped = true;
                cursor = Store.Cursor.START;
                continue;
            }
            for (StoredRecord r : page) {
                cursor = new Store.Cursor(r.key(), r.valueHash());
                scanned++;
                if (members.replicaSet(r.key()).contains(peer)) {
                    entries.add(new DigestEntry(r.key(), r.valueHash(), r.tombstone()));
                    if (entries.size() >= ctx.config().digestEntriesMax()) {
                        break outer;
                    }
                }
            }
        }
        antiEntropyCursor = cursor;
        return entries;
    }

    /**
     * Answers a digest with the entries this node lacks, and sends back its tombstone for every entry the sender still
     * holds as a live value. Digests only flow toward the nodes a sender sees as replicas, so without the second part
     * a node holding a removed value it was pushed while it was no replica (by a replica that missed the remove and
     * came back) would learn of the remove only if a tombstone holder happened to see it as a replica.
     */
    void answerDigest(Envelope e, Contact from, Digest d) {
        List<DigestEntry> want = new ArrayList<>();
        ReplicaPushes tombstones = null;
        for (DigestEntry entry : d.entries()) {
            Optional<StoredRecord> have = replica.read(entry.key(), entry.valueHash());
            boolean lacks = entry.tombstone() ? have.isEmpty() || !have.get().tombstone() : have.isEmpty();
            if (lacks) {
                want.add(entry);
            } else if (!entry.tombstone() && have.get().tombstone()) {
                if (tombstones == null) {
                    tombstones = new ReplicaPushes(ctx, replica);
                }
                tombstones.add(from, have.get());
            }
        }
        ctx.outbox().send(from.address(), e.requestId(), new DigestWant(want));
        if (tombstones != null) {
            tombstones.flush();
        }
    }

    /**
     * Graceful leave: hands every record to the neighbours that become its replicas; once they answered, tells the
     * leaf set this node is gone and runs {@code done}.
     */
    void handOff(Runnable done) {
        ReplicaPushes pushes = new ReplicaPushes(ctx, replica, () -> {
            // The records are handed off; the neighbours now drop this node and repair around it at once (a new
            // replica may lie beyond this node's leaf set, where only they can see it).
            for (Contact c : members.leafMembers()) {
                ctx.outbox().send(c.address(), 0, new Leave());
            }
            done.run();
        });
        replica.forEachRecord(r -> {
            for (Contact c : members.replicaSetAndNext(r.key())) {
                if (!c.equals(ctx.self())) {
                    pushes.add(c, r);
                }
            }
        });
        log.info("{} leaving: handing its records to its neighbours", ctx.tag());
        pushes.flush();
    }
}
