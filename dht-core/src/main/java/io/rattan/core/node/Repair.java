package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Leave;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every record on its k replicas by range-digest repair ({@link RangeSync}) with each leaf-set member: after a
 * change of the view (the leaf set's members not suspected: a suspect is in no replica set, so its keys' next
 * replicas need their copies before the probe declares it dead) every usable member is due for a session in the new
 * view, and anti-entropy rounds run the due ones first,
 * then re-check one member per round. A member counts as repaired for a view only once a session in that view
 * finished with every copy it streamed acknowledged. Graceful leave runs the same sessions toward the nodes that take
 * over. Owned by the node's event loop.
 */
final class Repair {

    private static final Logger log = LoggerFactory.getLogger(Repair.class);
    private static final long REPAIR_DELAY_NANOS = 200_000_000L;
    /** Sessions run at once, so that a view change does not scan the store for every member at the same time. */
    static final int SESSIONS_MAX = 4;
    private static final int HANDOFF_TRIES = 3;

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final PlantedBugs bugs;
    private final ReplicaStream.Counters counters = new ReplicaStream.Counters();
    private final ScanTimeouts scanTimeouts;
    private final ReplicaPairs pairs;
    private final Map<Id, ReplicaStream> streams = new HashMap<>();
    private final Map<Id, RangeSync> sessions = new HashMap<>();
    private final Map<Id, RangeSync> handingOff = new HashMap<>();
    private final Set<Id> running = new HashSet<>();
    private final Map<Id, Long> repairedIn = new HashMap<>();
    private final Map<Id, Long> failedIn = new HashMap<>();
    private Set<Id> view = new HashSet<>();
    // The leaf set's members at the last view change, suspects included: a member leaving them takes its stream.
    private Set<Id> leafIds = new HashSet<>();
    private long epoch;
    private boolean repairScheduled;
    private boolean dueScheduled;
    // Peers owed a copy while a session with them ran: that session does not make them repaired.
    private final Set<Id> owedWhileRunning = new HashSet<>();
    private int turn;
    // Sessions failed, ever: startDue tells a failure within its own loop by it.
    private long failures;
    private final StrayCheck strays;
    private final RepairAnswers answers;
    private final SecretGuard secrets;
    private final SolicitedCopies solicited;

    /** @param reach what this node's view reaches around a key, shared with {@link GetAnswers} */
    Repair(NodeContext ctx, Membership members, LocalReplica replica, PlantedBugs bugs, ViewReach reach) {
        this.ctx = ctx;
        this.members = members;
        this.replica = replica;
        this.bugs = bugs;
        this.scanTimeouts = new ScanTimeouts(ctx.config(), members);
        this.pairs = new ReplicaPairs(ctx, members);
        this.strays = new StrayCheck(ctx, members, replica, this::stream);
        this.secrets = new SecretGuard(pairs, reach);
        this.solicited = new SolicitedCopies(ctx, members);
        this.answers = new RepairAnswers(ctx, replica, pairs, secrets, bugs, this::stream, this::owed, solicited);
    }

    /** The copies this node asked its members for, which they may hand it though no replicas of their keys. */
    SolicitedCopies solicited() {
        return solicited;
    }

    /** Who may be sent a tombstone, by repair and by a replica read ({@link GetAnswers#answerReplicaRead}). */
    SecretGuard secrets() {
        return secrets;
    }

    /** The leaf set changed: start repairing soon, once (a join changes the leaf set many times in a burst). */
    void leafSetChanged() {
        if (repairScheduled || ctx.stopped()) {
            return;
        }
        repairScheduled = true;
        ctx.scheduler().schedule(REPAIR_DELAY_NANOS, this::viewChanged);
    }

    private void viewChanged() {
        repairScheduled = false;
        if (ctx.stopped()) {
            return;
        }
        Set<Id> leaves = new HashSet<>();
        // The view is the usable members: a suspect is out of every replica set, so its keys' new replicas are due.
        Set<Id> newView = new HashSet<>();
        for (Contact c : members.leafMembers()) {
            leaves.add(c.id());
            if (members.usable(c)) {
                newView.add(c.id());
            }
        }
        endHandOffsToDeparted(leaves);
        // Sessions with members that left end once the new view is in place (their waits can be long: ScanTimeouts).
        List<RangeSync> departed = dropDeparted(leaves);
        boolean membersChanged = !leaves.equals(leafIds);
        leafIds = leaves;
        boolean changed = !newView.equals(view);
        if (changed && (membersChanged || !newView.containsAll(view))) {
            epoch++;
            log.debug("{} repair epoch {}: {} usable, {} running", ctx.tag(), epoch, newView.size(), running.size());
        } else {
            // Only suspects cleared: no new epoch (a peer that flaps would restart every session), but they are due.
            newView.stream().filter(back -> !view.contains(back)).forEach(repairedIn::remove);
        }
        view = newView;
        departed.forEach(RangeSync::cancel);
        if (changed) {
            startDue(false);
        }
        if (membersChanged) {
            // Not at a suspicion raised or cleared: slow nodes flap all the time, and each would offer every member.
            strays.afterViewChange();
        }
    }

    /** Forgets the members that left the leaf set; returns their sessions still running. */
    private List<RangeSync> dropDeparted(Set<Id> leaves) {
        List<RangeSync> departed = new ArrayList<>();
        for (Id gone : leafIds) {
            if (!leaves.contains(gone)) {
                ReplicaStream stream = streams.remove(gone);
                if (stream != null) {
                    stream.abandon();
                }
                RangeSync session = sessions.remove(gone);
                if (session != null && running.contains(gone)) {
                    departed.add(session);
                }
                repairedIn.remove(gone);
                failedIn.remove(gone);
                owedWhileRunning.remove(gone);
                scanTimeouts.forget(gone);
            }
        }
        return departed;
    }

    /**
     * A node this one is handing off to left (or died) while this one was leaving: nothing it would take over can reach
     * it now, so its session ends rather than wait out its timeouts.
     */
    private void endHandOffsToDeparted(Set<Id> newView) {
        for (RangeSync h : List.copyOf(handingOff.values())) {
            if (!newView.contains(h.peer().id())) {
                handingOff.remove(h.peer().id());
                log.info("{} stops its hand-off to {}, which left its leaf set", ctx.tag(), h.peer());
                h.cancel();
            }
        }
    }

    /**
     * Starts sessions with the members not yet repaired in this view, up to {@link #SESSIONS_MAX} at once: first those
     * repaired longest ago (new members first), and those whose last session in this view failed last, so that views
     * changing faster than a pass over the leaf set starve no member. {@code afterFailure}: a session just failed, and
     * no member whose session failed in this view is started by it (the next round, a success or a view change starts
     * them). A store that refuses work (its queue full) fails a session at once, within this call: starting those
     * again here made two failing members start each other without end, until the loop's stack overflowed; and a
     * member started or failed by a nested call is not started again from this call's list.
     */
    private void startDue(boolean afterFailure) {
        long failuresBefore = failures;
        List<Contact> due = new ArrayList<>();
        for (Contact c : members.leafMembers()) {
            if (!running.contains(c.id()) && repairedIn.getOrDefault(c.id(), -1L) < epoch && members.usable(c)) {
                due.add(c);
            }
        }
        due.sort(Comparator.comparing((Contact c) -> failedIn.getOrDefault(c.id(), -1L) == epoch)
                .thenComparingLong(c -> repairedIn.getOrDefault(c.id(), -1L)));
        for (Contact c : due) {
            if (running.size() >= SESSIONS_MAX) {
                return;
            }
            boolean failedNow = failedIn.getOrDefault(c.id(), -1L) == epoch
                    && (afterFailure || failures != failuresBefore);
            if (!running.contains(c.id()) && !failedNow) {
                start(c);
            }
        }
    }

    private void start(Contact peer) {
        RangeSync s = sessions.get(peer.id());
        if (s == null || s.epoch() != epoch || !s.peer().equals(peer)) {
            s = new RangeSync(ctx, replica, peer, false, pairs.range(peer, false), pairs.filter(peer, false),
                    stream(peer), scanTimeouts, epoch, bugs);
            sessions.put(peer.id(), s);
        }
        RangeSync session = s;
        running.add(peer.id());
        long ackedBefore = counters.recordsAcked;
        session.run(ok -> {
            running.remove(peer.id());
            log.debug("{} repair session with {} {}: {} copies acknowledged meanwhile; totals: {} pages ({} bytes) "
                    + "sent, {} resent, {} copies dropped with departed peers", ctx.tag(), peer, ok ? "done" : "failed",
                    counters.recordsAcked - ackedBefore, counters.pagesSent, counters.bytesSent, counters.pagesResent,
                    counters.recordsAbandoned);
            boolean owedMeanwhile = owedWhileRunning.remove(peer.id());
            if (ok) {
                sessions.remove(peer.id(), session);
                if (session.epoch() == epoch && !owedMeanwhile) {
                    repairedIn.put(peer.id(), epoch);
                }
            } else {
                failedIn.put(peer.id(), epoch);
                failures++;
            }
            if (!ctx.stopped()) {
                // A failure starts no failed member again: a full store queue fails every session at once.
                startDue(!ok);
            }
        });
    }

    /**
     * A copy of a put this node coordinated may not have reached {@code peer} (its store refused it, or the copy was
     * not answered within the request timeout): the peer is due for a session in this view again, started shortly (or as
     * soon as a session slot frees), and retried by anti-entropy rounds until one succeeds; a session running now
     * does not count (its scan may have passed the key). Without it a peer that missed the copy (a full disk, a lossy
     * link) answers gets without the put until this node's turn over its leaf set comes round to it, up to a leaf
     * set's length of rounds later. Also owed: a peer
     * whose session with this node found it holding nothing ({@link RepairAnswers#answerRangeDigest}). Returns whether
     * that changed anything (false: the peer was due already).
     */
    boolean owed(Contact peer) {
        if (ctx.stopped()) {
            return false;
        }
        boolean wasRepaired = repairedIn.remove(peer.id()) != null;
        if (running.contains(peer.id())) {
            owedWhileRunning.add(peer.id());
        } else if (!wasRepaired) {
            return false;
        }
        log.debug("{} owes {} a copy: due for repair again", ctx.tag(), peer);
        if (!dueScheduled) {
            dueScheduled = true;
            ctx.scheduler().schedule(REPAIR_DELAY_NANOS, () -> {
                dueScheduled = false;
                if (!ctx.stopped()) {
                    startDue(false);
                }
            });
        }
        return true;
    }

    /** Copies new here from {@code from}, no replica of their keys here, go on to the keys' replicas. */
    void passOn(Contact from, List<StoredRecord> fresh) {
        strays.passOn(from, fresh);
    }

    /**
     * Member {@code id} answers this node again after a cut ({@link Peers#CUT_OFF_NANOS}): a session with it asks
     * again now what it left unanswered ({@link RangeSync#answersResumed}), and so does the stream of copies to it
     * ({@link ReplicaStream#answersResumed}).
     */
    void answersResumed(Id id) {
        RangeSync s = sessions.get(id);
        if (s != null && running.contains(id)) {
            s.answersResumed();
        }
        ReplicaStream stream = streams.get(id);
        if (stream != null) {
            stream.answersResumed();
        }
    }

    /** The stream to {@code peer}; one to its id at an old address (restarted on a new port) gives way to a new one. */
    private ReplicaStream stream(Contact peer) {
        ReplicaStream s = streams.get(peer.id());
        if (s == null || !s.peer().equals(peer)) {
            if (s != null) {
                s.abandon();
            }
            s = new ReplicaStream(ctx, replica, peer, counters, bugs);
            streams.put(peer.id(), s);
        }
        return s;
    }

    /**
     * One anti-entropy round: sessions with members still due; when none is, a check of the next member in turn
     * (two short messages when nothing differs). Then the stray check ({@link StrayCheck}), which each change of the
     * leaf set's members runs too.
     */
    void antiEntropyRound() {
        List<Contact> leaves = members.leafMembers();
        if (leaves.isEmpty()) {
            return;
        }
        startDue(false);
        if (running.isEmpty()) {
            Contact c = leaves.get(Math.floorMod(turn++, leaves.size()));
            if (members.usable(c)) {
                start(c);
            }
        }
        strays.round(List.of(leaves.get(ctx.random().nextInt(leaves.size()))));
    }

    /** What repair has done so far, for metrics. */
    RepairTotals totals() {
        return new RepairTotals(counters.pagesSent, counters.pagesResent, counters.recordsAcked, counters.bytesSent,
                counters.recordsAbandoned, running.size());
    }

    /** The answering side of a session another node started ({@link RepairAnswers}). */
    RepairAnswers answers() {
        return answers;
    }

    /**
     * Graceful leave: a hand-off session with every leaf-set member over the keys it takes over from this node; once
     * they finished (every copy acknowledged, or a session failed {@value #HANDOFF_TRIES} times, which is logged, or
     * its peer left the leaf set meanwhile: a neighbour leaving at the same time says goodbye once its own hand-off is
     * done, and waiting for a node that is gone would only wait out timeouts), tells the leaf set this node is gone
     * and runs {@code done}.
     */
    void handOff(Runnable done) {
        List<Contact> leaves = members.leafMembers();
        log.info("{} leaving: handing its records to {} neighbours", ctx.tag(), leaves.size());
        int[] left = {leaves.size()};
        Runnable oneDone = () -> {
            if (--left[0] == 0) {
                // The neighbours now drop this node and repair around it at once (a new replica may lie beyond this
                // node's leaf set, where only they can see it).
                // Once, bare, last: a namespace's hand-off runs before the default's (Namespaces.handOff), and any
                // message after the goodbye would make the neighbours take this node back.
                for (Contact c : ctx.isNamespace() ? List.<Contact>of() : members.leafMembers()) {
                    ctx.outbox().send(c.address(), 0, new Leave());
                }
                done.run();
            }
        };
        if (leaves.isEmpty()) {
            done.run();
            return;
        }
        for (Contact c : leaves) {
            RangeSync s = new RangeSync(ctx, replica, c, true, pairs.range(c, true), pairs.filter(c, true), stream(c),
                    scanTimeouts, epoch, bugs);
            handingOff.put(c.id(), s);
            runHandOff(s, 1, oneDone);
        }
    }

    private void runHandOff(RangeSync s, int attempt, Runnable oneDone) {
        s.run(ok -> {
            if (ok || handingOff.get(s.peer().id()) != s) {
                handingOff.remove(s.peer().id(), s);
                oneDone.run();
            } else if (attempt < HANDOFF_TRIES) {
                runHandOff(s, attempt + 1, oneDone);
            } else {
                log.warn("{} could not hand off to {} ({} copies unacknowledged)", ctx.tag(), s.peer(),
                        stream(s.peer()).owed());
                handingOff.remove(s.peer().id(), s);
                oneDone.run();
            }
        });
    }
}
