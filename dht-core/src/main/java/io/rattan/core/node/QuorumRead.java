package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One quorum get at the replica that serves it (the first replica the get reached): it reads its own records of the
 * key and asks {@code R − 1} other replicas of its view for theirs ({@link ReplicaRead}), closest to the key first,
 * and before them the key's replicas in the recent views that are not in this one (R grows by their number);
 * a replica that is late (its RTO passed) or refuses is replaced by the next one, and a late answer still counts. A
 * late replica is also asked again ({@link #askAgain}), and the replicas of the view the read began with make R: a
 * node asked in a late one's place adds its records to the merge, and stands in for it only once it is given up.
 * Once R answered it merges them ({@link ReadMerge}), answers the gateway, and sends each replica that lacked a
 * record the merged one: the same {@link StoreReplicas} a put sends, so it passes the receiver's replica-set rule
 * like any copy, and a lost repair is made good by anti-entropy. Fewer than R by its deadline (half the request
 * timeout, so that the gateway hears before it gives up), or every replica of its view asked: it answers
 * {@link Status#PARTIAL} with the merge of those it reached, and repairs those. Owned by the node's event loop.
 */
final class QuorumRead {

    private static final Logger log = LoggerFactory.getLogger(QuorumRead.class);

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final GetRequest get;
    private final int needed;
    private final int maxValues;
    /** A get of consistency one that reads more replicas only to be safe: answered OK with what was read. */
    private final boolean oneSuffices;
    private final List<ReadMerge.Answer> answers = new ArrayList<>();
    private final Set<Id> asked = new HashSet<>();
    private final Set<Id> late = new HashSet<>();
    /**
     * Nodes that were replicas of the key in a view of the settling window and are not now ({@link GetAnswers}), and
     * for a get read wider than one replica, the key's suspected replicas ({@code GetAnswers.withSuspects}):
     * {@code reachable}, those of them that are usable members (asked first) or suspects (last), counted among the
     * read's replicas; R grows by {@code count}, all of them, so that a current replica is read in place of each one
     * not reachable.
     */
    record Past(List<Contact> reachable, int count) {
        static final Past NONE = new Past(List.of(), 0);

        Past {
            reachable = List.copyOf(reachable);
        }
    }

    private final Past past;
    /** The replicas of this node's view when the read began, itself included: only their answers make R. */
    private final Set<Id> replicas = new HashSet<>();
    /** Replicas that answered or failed: a second answer (to a resend) or a late failure changes nothing. */
    private final Set<Id> closed = new HashSet<>();
    private final List<ResentRequest> resends = new ArrayList<>();
    /** Answers from the view's replicas (the rest of {@link #answers} came from nodes beyond them). */
    private int replicaAnswers;
    /** The view's replicas given up: late, and silent for an RTO after being asked again. */
    private int givenUp;
    private int outstanding;
    private Cost cost;
    private boolean done;
    private Cancellable deadline = Cancellable.NONE;

    private QuorumRead(NodeContext ctx, Membership members, LocalReplica replica, GetRequest get, int readQuorum,
                       Past past, boolean oneSuffices) {
        this.ctx = ctx;
        this.past = past;
        this.oneSuffices = oneSuffices;
        this.members = members;
        this.replica = replica;
        this.get = get;
        NodeConfig config = ctx.config();
        replicas.add(ctx.self().id());
        for (Contact c : members.replicaSet(get.key())) {
            replicas.add(c.id());
        }
        past.reachable().forEach(c -> replicas.add(c.id()));
        // A gateway with a larger k than this node's asks for what this node can give: all its replicas.
        // At most every current replica and every reachable past one (fewer than k in a small overlay).
        this.needed = Math.min(Math.min(readQuorum, config.replicas()) + past.count(),
                Math.min(config.replicas() + past.reachable().size(), replicas.size()));
        this.maxValues = Math.min(get.maxValues() <= 0 ? config.pageValuesMax() : get.maxValues(),
                config.pageValuesMax());
        this.cost = get.cost();
    }

    /**
     * Serves quorum get {@code g} here: answers its origin once R replicas answered or the deadline passed. The
     * key's {@code past} replicas ({@link Past}) are asked too, and R grows by their number.
     */
    static void start(NodeContext ctx, Membership members, LocalReplica replica, GetRequest g, Past past) {
        start(ctx, members, replica, g, g.readQuorum(), past);
    }

    /** As {@link #start(NodeContext, Membership, LocalReplica, GetRequest, Past)}, reading R = {@code readQuorum}. */
    static void start(NodeContext ctx, Membership members, LocalReplica replica, GetRequest g, int readQuorum,
                      Past past) {
        new QuorumRead(ctx, members, replica, g, readQuorum, past, false).run();
    }

    /**
     * Serves get {@code g} of consistency one at a replica whose view is unsettled ({@link GetAnswers#settled}): reads
     * as a quorum get of R = {@code readQuorum} does, but answers OK with the merge of those that answered, its own
     * records included, as the replica alone would have answered OK (never PARTIAL for replicas that were late).
     */
    static void startWidened(NodeContext ctx, Membership members, LocalReplica replica, GetRequest g, int readQuorum,
                             Past past) {
        new QuorumRead(ctx, members, replica, g, readQuorum, past, true).run();
    }

    private void run() {
        asked.add(ctx.self().id());
        try {
            RecordPage own = replica.readRecords(get.key(), get.placemark(), maxValues, get.filter());
            answers.add(new ReadMerge.Answer(ctx.self(), own.records(), own.more()));
            replicaAnswers++;
        } catch (StoreException e) {
            // This replica's store failed: it counts as one that did not answer, and another is asked in its place.
            log.warn("{} cannot read {} for a quorum get: {}", ctx.tag(), get.key().shortHex(), e.toString());
        }
        deadline = ctx.scheduler().schedule(giveUpNanos(), () -> {
            if (!done && !ctx.stopped()) {
                finish();
            }
        });
        askMore();
        check();
    }

    private long giveUpNanos() {
        return nanos(ctx.config().requestTimeoutMillis()) / 2;
    }

    /**
     * Asks the past replicas, then replicas of this node's current view, closest first, until answers and timely asks
     * could make R.
     */
    private void askMore() {
        List<Contact> order = new ArrayList<>(past.reachable());
        order.addAll(members.replicaSet(get.key()));
        // Suspects, and replicas whose answers to this node have stopped (Peers.answersStopped), last: one would hold
        // the read up.
        order.sort(Comparator.comparing(c -> !members.usable(c) || members.answersStopped(c.id())));
        for (Contact c : order) {
            if (done || answers.size() + outstanding - late.size() >= needed) {
                return;
            }
            if (asked.add(c.id())) {
                ask(c);
            }
        }
    }

    private void ask(Contact c) {
        outstanding++;
        ReplicaRead read = new ReplicaRead(get.key(), get.placemark(), maxValues, get.filter());
        cost = cost.plus(ctx.outbox().sizeOf(ctx.self(), read));
        long sentAt = ctx.now();
        PatientRequest.send(ctx, members, c, read, giveUpNanos(),
                () -> {
                    // Late, not lost: its answer still counts if it comes; meanwhile the next replica is asked.
                    late.add(c.id());
                    askAgain(c, read, sentAt);
                    askMore();
                    check();
                },
                ReplyHandler.of(reply -> answered(c, reply), () -> failed(c)));
    }

    /**
     * A replica of the read's view that is late is asked again, at its RTO and then at doubling intervals, until it
     * answers or the read's deadline: a read only reads, so a second answer does no harm, and a lost request or answer
     * must not leave R to nodes that hold no copy. Nodes beyond the view's replicas are asked when one is late, and
     * their records are merged, but one makes R in a replica's place only once that replica has left the first resend
     * unanswered for its RTO too: likely down, not a lost message, and waiting for a dead replica until the deadline
     * would hold every read of its keys (docs/history.md, "Late replicas of a wide read are asked again").
     */
    private void askAgain(Contact c, ReplicaRead read, long sentAt) {
        long left = sentAt + giveUpNanos() - ctx.now();
        if (done || !replicas.contains(c.id()) || left <= 0) {
            return;
        }
        cost = cost.plus(ctx.outbox().sizeOf(ctx.self(), read));
        long rto = Math.max(1, members.rtoNanos(c.id()));
        resends.add(ResentRequest.send(ctx, c, read, left, rto, (reply, took) -> answered(c, reply), () -> { }));
        ctx.scheduler().schedule(rto, () -> {
            // Unanswered for its RTO again: likely down, not a lost message. A node asked in its place may stand in.
            if (!done && !closed.contains(c.id())) {
                givenUp++;
                check();
            }
        });
    }

    private void answered(Contact c, Envelope reply) {
        if (done || closed.contains(c.id())) {
            return;
        }
        Message m = reply.body();
        if (!(m instanceof ReplicaReadReply r)) {
            log.debug("{} quorum get of {}: {} answered {}", ctx.tag(), get.key().shortHex(), c,
                    m instanceof ErrorReply e ? e.status() + " " + e.detail() : m.type());
            failed(c);
            return;
        }
        closed.add(c.id());
        late.remove(c.id());
        cost = cost.plus(ctx.outbox().sizeOf(c, r));
        List<StoredRecord> records = readable(r);
        if (records.stream().noneMatch(StoredRecord::isOwned)) {
            counted(c, records, r.more());
            return;
        }
        // Owners' signatures are checked off the loop, as where a replica writes; the answer counts once they are.
        NodeConfig config = ctx.config();
        replica.offLoop(() -> OwnedRecords.signed(records, config.namespace(), config.valueBytesMax()),
                (signed, failure) -> {
            LocalReplica.storeFault(failure);
            counted(c, failure == null ? signed : List.of(), r.more());
        });
    }

    private void counted(Contact c, List<StoredRecord> records, boolean more) {
        outstanding--;
        if (done) {
            return;
        }
        answers.add(new ReadMerge.Answer(c, records, more));
        replicaAnswers += replicas.contains(c.id()) ? 1 : 0;
        check();
    }

    private void failed(Contact c) {
        if (done || !closed.add(c.id())) {
            return;
        }
        outstanding--;
        late.remove(c.id());
        askMore();
        check();
    }

    /**
     * The records of a reply that belong to this read (its key, after its placemark, passing its filter) and pass the
     * checks a pushed copy passes; others are dropped.
     */
    private List<StoredRecord> readable(ReplicaReadReply r) {
        List<StoredRecord> out = new ArrayList<>(r.records().size());
        for (ReplicaRecord w : r.records()) {
            if (!w.key().equals(get.key()) || !get.filter().matches(w.stamp())
                    || (!get.placemark().isEmpty() && w.slot().compareTo(get.placemark()) <= 0)) {
                continue;
            }
            StoredRecord s = replica.readable(w);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    private void check() {
        if (!done && (counted() >= needed || outstanding == 0)) {
            finish();
        }
    }

    /** Answers that make R: the view's replicas', and stand-ins for those given up (late, and asked again in vain). */
    private int counted() {
        return replicaAnswers + Math.min(givenUp, answers.size() - replicaAnswers);
    }

    private void finish() {
        done = true;
        deadline.cancel();
        resends.forEach(ResentRequest::cancel);
        if (answers.isEmpty()) {
            ctx.outbox().replyToOrigin(get, new ErrorReply(Status.UNAVAILABLE,
                    "no replica answered a quorum read of " + needed));
            return;
        }
        ReadMerge.Result merged = ReadMerge.merge(answers, maxValues, ctx.config().pageBytesMax(),
                ctx.clock().epochMillis(), replica.clockSettled());
        List<Contact> current = members.replicaSet(get.key());
        for (ReadMerge.Repair r : merged.repairs()) {
            // A past replica is read, not repaired: it is no replica now, and a copy there would be one too many.
            if (!past.reachable().contains(r.to()) || current.contains(r.to())) {
                repair(r);
            }
        }
        boolean ownAnswered = answers.get(0).from().equals(ctx.self());
        boolean partial = counted() < needed && !(oneSuffices && ownAnswered);
        int repaired = merged.repairedRecords();
        ctx.listener().quorumReadDone(partial, repaired);
        if (partial || repaired > 0) {
            log.debug("{} quorum get of {}: {} of {} replicas answered, {} records repaired", ctx.tag(),
                    get.key().shortHex(), answers.size(), needed, repaired);
        }
        GetReply reply = new GetReply(partial ? Status.PARTIAL : Status.OK, merged.values(), merged.placemark(),
                get.hops(), partial ? counted() + " of the " + needed + " replicas asked for answered" : "",
                cost, get.wantHolders() ? members.replicaSet(get.key()) : List.of(), answers.size());
        if (!get.origin().id().equals(ctx.self().id())) {
            // The reply's size does not depend on the cost it carries (fixed-width fields).
            reply = reply.withCost(cost.plus(ctx.outbox().sizeOf(ctx.self(), reply)));
        }
        ctx.outbox().replyToOrigin(get, reply);
    }

    /**
     * This node's own read repair, as a pushed copy; owned records go off the loop, where their signatures are
     * checked ({@link LocalReplica#accept}).
     */
    private void repairHere(List<ReplicaRecord> wire) {
        List<ReplicaRecord> owned = wire.stream().filter(w -> w.stamp() != null).toList();
        try {
            replica.acceptReplicas(owned.isEmpty() ? wire : wire.stream().filter(w -> w.stamp() == null).toList());
        } catch (StoreException e) {
            repairFailed(e);
        }
        if (!owned.isEmpty()) {
            replica.offLoop(() -> replica.acceptReplicas(owned), (n, failure) -> {
                StoreException e = LocalReplica.storeFault(failure);
                if (e != null) {
                    repairFailed(e);
                }
            });
        }
    }

    private void repairFailed(StoreException e) {
        log.warn("{} cannot store its own read repair of {}: {}", ctx.tag(), get.key().shortHex(), e.toString());
    }

    /**
     * Sends {@code r}'s records to its replica: this node's own store takes them as a pushed copy; another node gets
     * them in {@link StoreReplicas} pages of bounded size, without retry (anti-entropy makes a lost one good).
     */
    private void repair(ReadMerge.Repair r) {
        List<ReplicaRecord> wire = new ArrayList<>(r.records().size());
        for (StoredRecord s : r.records()) {
            wire.add(replica.toWire(s));
        }
        if (r.to().equals(ctx.self())) {
            repairHere(wire);
            return;
        }
        int from = 0;
        while (from < wire.size()) {
            int to = from;
            long bytes = 0;
            while (to < wire.size() && to - from < ctx.config().digestEntriesMax()
                    && (to == from || bytes + wire.get(to).value().length() <= ReplicaStream.PAGE_BYTES_MAX)) {
                bytes += wire.get(to).value().length();
                to++;
            }
            StoreReplicas page = new StoreReplicas(wire.subList(from, to));
            cost = cost.plus(ctx.outbox().sizeOf(ctx.self(), page));
            ctx.outbox().request(r.to(), page, nanos(ctx.config().rtoMaxMillis()), ReplyHandler.of(reply -> { },
                    () -> { }));
            from = to;
        }
    }
}
