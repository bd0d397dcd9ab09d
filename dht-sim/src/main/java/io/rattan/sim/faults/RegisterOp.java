package io.rattan.sim.faults;

import java.util.Locale;
import java.util.Objects;

/**
 * One operation of a register history as a client saw it: its interval of real time and what it answered. It also
 * carries the register's sequential specification ({@link #legalFrom}, {@link #after}), because the operation's
 * answer is exactly what constrains the states it may be linearized in.
 *
 * <p>Build one with {@link #read} or {@link #swap}: they keep the components consistent. {@code expectedSeq} is
 * null, and {@code expectAbsent} true, for a swap that applies only to an absent register; {@code currentSeq} is
 * the seq a refusal reported (null: absent). Fields that do not apply to the kind are null or false.
 */
record RegisterOp(Kind kind, long invokeNanos, long returnNanos, Long expectedSeq, boolean expectAbsent,
                  RegisterVersion written, Outcome outcome, Long currentSeq, RegisterVersion read) {

    /** What the client asked for. */
    enum Kind { READ, SWAP }

    /** How a swap answered. */
    enum Outcome {
        SWAPPED,
        /** A 412: the register held {@code currentSeq}, which the swap did not expect. */
        REFUSED,
        /** Timed out: it may or may not have taken effect, at any time after its call. */
        UNKNOWN
    }

    RegisterOp {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.SWAP) {
            Objects.requireNonNull(written, "written");
            Objects.requireNonNull(outcome, "outcome");
            if (expectAbsent != (expectedSeq == null)) {
                throw new IllegalArgumentException("expectAbsent must be set exactly when expectedSeq is null");
            }
        }
        if (returnNanos < invokeNanos && outcome != Outcome.UNKNOWN) {
            throw new IllegalArgumentException("returns before its call: " + invokeNanos + " > " + returnNanos);
        }
    }

    /** A read that returned {@code seen} (null: the register was absent). */
    static RegisterOp read(long invoke, long ret, RegisterVersion seen) {
        return new RegisterOp(Kind.READ, invoke, ret, null, false, null, null, null, seen);
    }

    /**
     * A compare-and-swap of {@code written} over the version with seq {@code expectedSeq} (null: only if absent).
     * For {@link Outcome#REFUSED}, {@code currentSeq} is the seq the refusal reported (null: absent); for
     * {@link Outcome#UNKNOWN}, {@code ret} is ignored.
     */
    static RegisterOp swap(long invoke, long ret, Long expectedSeq, RegisterVersion written, Outcome outcome,
                           Long currentSeq) {
        return new RegisterOp(Kind.SWAP, invoke, ret, expectedSeq, expectedSeq == null, written, outcome,
                outcome == Outcome.REFUSED ? currentSeq : null, null);
    }

    /** Its return as the search orders it: a timed-out swap may take effect at any later time, or never. */
    long effectiveReturnNanos() {
        return outcome == Outcome.UNKNOWN ? Long.MAX_VALUE : returnNanos;
    }

    /** Whether it may take effect, with the answer it gave, on a register in {@code state}. */
    boolean legalFrom(RegisterVersion state) {
        if (kind == Kind.READ) {
            return Objects.equals(state, read);
        }
        return switch (outcome) {
            // A retry of a swap that already landed finds its own version current, and the server answers success.
            case SWAPPED -> matches(state) || written.equals(state);
            case REFUSED -> !matches(state) && !written.equals(state) && Objects.equals(seqOf(state), currentSeq);
            case UNKNOWN -> true;
        };
    }

    /** The register's state once it took effect on {@code state} (for which {@link #legalFrom} holds). */
    RegisterVersion after(RegisterVersion state) {
        if (kind == Kind.READ || outcome == Outcome.REFUSED) {
            return state;
        }
        // A timed-out swap that did not match changed nothing; one that never took effect is linearized last.
        return outcome == Outcome.UNKNOWN && !matches(state) ? state : written;
    }

    /** Whether its expectation holds in {@code state}: for a swap that timed out, whether it would apply. */
    boolean matches(RegisterVersion state) {
        return expectedSeq == null ? state == null : state != null && state.seq() == expectedSeq;
    }

    private static Long seqOf(RegisterVersion state) {
        return state == null ? null : state.seq();
    }

    /** As a violation report prints it, e.g. {@code swap(1 -> 3:"a") swapped [1.200 s, 1.350 s]}. */
    @Override
    public String toString() {
        String until = outcome == Outcome.UNKNOWN ? "?" : seconds(returnNanos);
        String interval = " [" + seconds(invokeNanos) + ", " + until + "]";
        if (kind == Kind.READ) {
            return "read() = " + RegisterVersion.show(read) + interval;
        }
        String from = expectedSeq == null ? "absent" : expectedSeq.toString();
        String answer = switch (outcome) {
            case SWAPPED -> "swapped";
            case REFUSED -> "refused at " + (currentSeq == null ? "absent" : currentSeq.toString());
            case UNKNOWN -> "unknown";
        };
        return "swap(" + from + " -> " + written + ") " + answer + interval;
    }

    // Millisecond digits when they say it all, more when two events differ below a millisecond.
    private static String seconds(long nanos) {
        long whole = Math.floorDiv(nanos, 1_000_000_000L);
        long fraction = Math.floorMod(nanos, 1_000_000_000L);
        String digits = fraction % 1_000_000 == 0 ? String.format(Locale.ROOT, "%03d", fraction / 1_000_000)
                : fraction % 1_000 == 0 ? String.format(Locale.ROOT, "%06d", fraction / 1_000)
                : String.format(Locale.ROOT, "%09d", fraction);
        return whole + "." + digits + " s";
    }
}
