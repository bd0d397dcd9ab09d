package io.rattan.sim.faults;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether a history of one compare-and-swap register is linearizable: Wing and Gong's search with Lowe's memo, as
 * Porcupine does it. Written here rather than taken from a library so that the simulator stays on the JDK, and so
 * that the search is bounded by a count of steps, not by a clock, and a run gives the same verdict every time.
 *
 * <p>The calls and returns are sorted into one list; the search linearizes the first pending call whose answer the
 * register's specification ({@link RegisterOp#legalFrom}) allows in the current state, lifts it and its return out
 * of the list, and starts again from the front. Reaching a return means that operation should have taken effect by
 * then, so the search backtracks to the last choice. A (set of linearized operations, state) pair already seen is
 * not explored twice: two orders that reach the same pair have the same futures.
 *
 * <p>A timed-out swap is placed only where it applies. Where its expectation fails it changes nothing, so it may as
 * well go after everything else, which its endless interval allows, and which it never blocks. The search is done
 * when only timed-out swaps are left. Without this, each pending one would double the points to explore, whether
 * it was placed as a no-op yet or not, and a violating history with a dozen of them would not be decided.
 */
final class LinearizabilityCheck {

    /**
     * What the search found. For a violation, {@code linearized} is the most operations it could linearize (not
     * counting timed-out swaps that would change nothing, which may all go last), {@code stuckState} the register's
     * state after them, and {@code stuck} the operations pending then, none of which could take effect in that state:
     * first the one whose return the search reached, then the others that could have come before it.
     */
    record Verdict(Kind kind, long steps, int linearized, int total, RegisterVersion stuckState,
                   List<RegisterOp> stuck) {

        /** The three outcomes; a timeout says nothing either way. */
        enum Kind { LINEARIZABLE, VIOLATION, TIMEOUT }

        private static final int LISTED = 4;

        Verdict {
            stuck = List.copyOf(stuck);
        }

        /** One line for a report. */
        String explanation() {
            return switch (kind) {
                case LINEARIZABLE -> "linearizable: " + total + " ops, " + steps + " steps";
                case TIMEOUT -> "undecided after " + steps + " steps; at most " + linearized + " of " + total
                        + " ops linearized so far";
                case VIOLATION -> "not linearizable: at most " + linearized + " of " + total
                        + " ops linearize; then the register holds " + RegisterVersion.show(stuckState) + ", where "
                        + stuck.get(0) + " cannot take effect by its return"
                        + (stuck.size() == 1 ? "" : ", nor can any other op pending: " + others());
            };
        }

        private String others() {
            StringBuilder b = new StringBuilder();
            for (int i = 1; i < Math.min(LISTED + 1, stuck.size()); i++) {
                b.append(i == 1 ? "" : "; ").append(stuck.get(i));
            }
            if (stuck.size() > LISTED + 1) {
                b.append("; and ").append(stuck.size() - LISTED - 1).append(" more");
            }
            return b.toString();
        }
    }

    /** A call or a return in the list; a call holds its return, so that both leave the list together. */
    private static final class Entry {
        final int op;
        final Entry match;
        Entry prev;
        Entry next;

        Entry(int op, Entry match) {
            this.op = op;
            this.match = match;
        }

        boolean isCall() {
            return match != null;
        }
    }

    /** A choice to undo when backtracking: the call linearized and the state before it. */
    private record Frame(Entry call, RegisterVersion before) {
    }

    /** A point the search already explored. Probes share the live bit set; stored keys own a copy. */
    private record Memo(BitSet linearized, RegisterVersion state) {
    }

    /** An event to sort: the op's call or its return, at {@code time}; a timed-out swap returns {@code never}. */
    private record Event(long time, boolean isReturn, boolean never, int op) {
    }

    // Calls before returns at one instant, so that touching intervals count as overlapping and never order two ops.
    private static final Comparator<Event> ORDER = Comparator.comparingLong(Event::time)
            .thenComparing(Event::isReturn).thenComparing(Event::never).thenComparingInt(Event::op);

    private final List<RegisterOp> ops;
    private final long stepBudget;
    private final Entry head = new Entry(-1, null);
    private final BitSet linearized = new BitSet();
    private final Set<Memo> explored = new HashSet<>();
    private final Deque<Frame> calls = new ArrayDeque<>();
    private RegisterVersion state;
    // Ops other than timed-out swaps not linearized yet: at zero, the rest may all go last.
    private int certainLeft;
    private long steps;
    private int mostLinearized = -1;
    private RegisterVersion stuckState;
    private List<RegisterOp> stuck = List.of();

    private LinearizabilityCheck(List<RegisterOp> history, RegisterVersion initial, long stepBudget) {
        this.ops = List.copyOf(history);
        this.state = initial;
        this.stepBudget = stepBudget;
        link();
    }

    /**
     * Checks {@code history} against a register that starts in {@code initial} (null: absent), giving up with
     * {@link Verdict.Kind#TIMEOUT} after {@code stepBudget} attempts to linearize an operation.
     */
    static Verdict check(List<RegisterOp> history, RegisterVersion initial, long stepBudget) {
        return new LinearizabilityCheck(history, initial, stepBudget).search();
    }

    private void link() {
        List<Event> events = new ArrayList<>(2 * ops.size());
        for (int i = 0; i < ops.size(); i++) {
            boolean never = timedOut(ops.get(i));
            certainLeft += never ? 0 : 1;
            events.add(new Event(ops.get(i).invokeNanos(), false, never, i));
            events.add(new Event(ops.get(i).effectiveReturnNanos(), true, never, i));
        }
        events.sort(ORDER);
        Entry[] returns = new Entry[ops.size()];
        for (int i = 0; i < returns.length; i++) {
            returns[i] = new Entry(i, null);
        }
        Entry last = head;
        for (Event e : events) {
            Entry entry = e.isReturn() ? returns[e.op()] : new Entry(e.op(), returns[e.op()]);
            entry.prev = last;
            last.next = entry;
            last = entry;
        }
    }

    private Verdict search() {
        Entry entry = head.next;
        while (certainLeft > 0) {
            if (entry.isCall()) {
                if (++steps > stepBudget) {
                    return verdict(Verdict.Kind.TIMEOUT);
                }
                RegisterOp op = ops.get(entry.op);
                if (placeable(op) && firstVisit(entry.op, op.after(state))) {
                    calls.push(new Frame(entry, state));
                    certainLeft -= timedOut(op) ? 0 : 1;
                    state = op.after(state);
                    lift(entry);
                    entry = head.next;
                } else {
                    entry = entry.next;
                }
            } else {
                noteStuck(entry);
                if (calls.isEmpty()) {
                    return verdict(Verdict.Kind.VIOLATION);
                }
                Frame top = calls.pop();
                certainLeft += timedOut(ops.get(top.call().op)) ? 0 : 1;
                linearized.clear(top.call().op);
                state = top.before();
                unlift(top.call());
                entry = top.call().next;
            }
        }
        return verdict(Verdict.Kind.LINEARIZABLE);
    }

    private boolean placeable(RegisterOp op) {
        return op.legalFrom(state) && (!timedOut(op) || op.matches(state));
    }

    private static boolean timedOut(RegisterOp op) {
        return op.outcome() == RegisterOp.Outcome.UNKNOWN;
    }

    // Marks op linearized into next unless that point was explored already, in which case it leaves no trace.
    private boolean firstVisit(int op, RegisterVersion next) {
        linearized.set(op);
        if (explored.contains(new Memo(linearized, next))) {
            linearized.clear(op);
            return false;
        }
        explored.add(new Memo((BitSet) linearized.clone(), next));
        return true;
    }

    private static void lift(Entry call) {
        call.prev.next = call.next;
        call.next.prev = call.prev;
        Entry ret = call.match;
        ret.prev.next = ret.next;
        if (ret.next != null) {
            ret.next.prev = ret.prev;
        }
    }

    // The exact reverse of lift: the neighbours' links still point past the lifted entries.
    private static void unlift(Entry call) {
        Entry ret = call.match;
        ret.prev.next = ret;
        if (ret.next != null) {
            ret.next.prev = ret;
        }
        call.prev.next = call;
        call.next.prev = call;
    }

    // The deepest dead end is the report: the op whose return was reached, then the others that could have come.
    private void noteStuck(Entry ret) {
        if (calls.size() <= mostLinearized) {
            return;
        }
        mostLinearized = calls.size();
        stuckState = state;
        List<RegisterOp> pending = new ArrayList<>();
        pending.add(ops.get(ret.op));
        for (Entry e = head.next; e != ret; e = e.next) {
            // A timed-out swap that would change nothing is no candidate: it may go last.
            if (e.isCall() && e.op != ret.op && (!timedOut(ops.get(e.op)) || ops.get(e.op).matches(state))) {
                pending.add(ops.get(e.op));
            }
        }
        stuck = pending;
    }

    private Verdict verdict(Verdict.Kind kind) {
        int most = switch (kind) {
            case LINEARIZABLE -> ops.size();
            case TIMEOUT -> Math.max(calls.size(), mostLinearized);
            case VIOLATION -> mostLinearized;
        };
        return new Verdict(kind, steps, most, ops.size(), stuckState, stuck);
    }
}
