package io.rattan.core.node;

import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The gateway's state for one iterative get: candidates the gateway knows near the key, which of them were asked,
 * and how many questions are in flight. The gateway always asks the closest candidate not yet asked, and keeps
 * {@code parallelism} questions in flight while candidates remain; every answer that names closer nodes adds them.
 * Once every candidate was asked and none answered in time, the closest ones may be asked once more
 * ({@link #askAgain}).
 * At most {@link #CANDIDATES_MAX} candidates are remembered (the farthest unasked ones are forgotten), which bounds
 * how many nodes one get can ask. Pure bookkeeping: the node sends and times out.
 */
final class IterativeLookup {

    static final int CANDIDATES_MAX = 32;

    private enum State { NEW, IN_FLIGHT, ANSWERED, FAILED }

    private static final class Candidate {
        final Contact contact;
        final int depth;
        State state = State.NEW;

        Candidate(Contact contact, int depth) {
            this.contact = contact;
            this.depth = depth;
        }
    }

    private final Id key;
    private final Id self;
    private final int parallelism;
    // Looked up by id only; choice of the next candidate scans by distance, never by map order.
    private final Map<Id, Candidate> byId = new HashMap<>();
    private final List<Candidate> candidates = new ArrayList<>();
    private int inFlight;
    private boolean askedAgain;
    private boolean finished;
    private Cost cost = Cost.ZERO;
    private GetReply setAside;
    private Contact setAsideBy;

    IterativeLookup(Id key, Id self, int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        this.key = key;
        this.self = self;
        this.parallelism = parallelism;
    }

    /** Adds candidates found at {@code depth} hops from the gateway; self and known ones are skipped. */
    void offer(Collection<Contact> contacts, int depth) {
        for (Contact c : contacts) {
            if (c.id().equals(self) || byId.containsKey(c.id())) {
                continue;
            }
            Candidate cand = new Candidate(c, depth);
            byId.put(c.id(), cand);
            candidates.add(cand);
        }
        while (candidates.size() > CANDIDATES_MAX) {
            Candidate farthest = null;
            for (Candidate c : candidates) {
                if (c.state == State.NEW && (farthest == null || farthest.contact.id().isCloserTo(key, c.contact.id()))) {
                    farthest = c;
                }
            }
            if (farthest == null) {
                break;
            }
            candidates.remove(farthest);
        }
    }

    /** The next candidate to ask, now counted in flight; null when p are in flight, none is left, or finished. */
    Contact next() {
        if (finished || inFlight >= parallelism) {
            return null;
        }
        Candidate best = null;
        for (Candidate c : candidates) {
            if (c.state == State.NEW && (best == null || c.contact.id().isCloserTo(key, best.contact.id()))) {
                best = c;
            }
        }
        if (best == null) {
            return null;
        }
        best.state = State.IN_FLIGHT;
        inFlight++;
        return best.contact;
    }

    /** {@code c} answered (with values or with more candidates). */
    void answered(Contact c) {
        settle(c, State.ANSWERED);
    }

    /** {@code c} did not answer in time. */
    void failed(Contact c) {
        settle(c, State.FAILED);
    }

    private void settle(Contact c, State state) {
        Candidate cand = byId.get(c.id());
        if (cand != null && cand.state == State.IN_FLIGHT) {
            cand.state = state;
            inFlight--;
        }
    }

    /** Hops from the gateway to {@code c}: 1 for the gateway's own neighbours. */
    int depth(Contact c) {
        Candidate cand = byId.get(c.id());
        return cand == null ? 0 : cand.depth;
    }

    void spent(Cost more) {
        cost = cost.plus(more);
    }

    Cost cost() {
        return cost;
    }

    int inFlight() {
        return inFlight;
    }

    /**
     * Once per lookup, when it is exhausted: the up to {@code parallelism} closest candidates whose questions timed
     * out, now counted in flight again, to be asked once more. Empty the second time.
     */
    List<Contact> askAgain() {
        List<Contact> again = new ArrayList<>();
        if (askedAgain || finished) {
            return again;
        }
        askedAgain = true;
        List<Candidate> failed = new ArrayList<>();
        for (Candidate c : candidates) {
            if (c.state == State.FAILED) {
                failed.add(c);
            }
        }
        failed.sort((a, b) -> a.contact.id().equals(b.contact.id()) ? 0
                : a.contact.id().isCloserTo(key, b.contact.id()) ? -1 : 1);
        for (Candidate c : failed.subList(0, Math.min(parallelism, failed.size()))) {
            c.state = State.IN_FLIGHT;
            inFlight++;
            again.add(c.contact);
        }
        return again;
    }

    /** No question in flight and none left to ask: the lookup failed. */
    boolean exhausted() {
        if (inFlight > 0) {
            return false;
        }
        for (Candidate c : candidates) {
            if (c.state == State.NEW) {
                return false;
            }
        }
        return true;
    }

    /**
     * Keeps {@code answer}, from {@code by}, one the gateway set aside, unless an earlier one is kept: it stands if no
     * other comes.
     */
    void setAside(Contact by, GetReply answer) {
        if (setAside == null) {
            setAside = answer;
            setAsideBy = by;
        }
    }

    /** The first answer set aside, or null. */
    GetReply setAside() {
        return setAside;
    }

    /** The node that sent the answer set aside, or null. */
    Contact setAsideBy() {
        return setAsideBy;
    }

    void finish() {
        finished = true;
    }

    boolean finished() {
        return finished;
    }
}
