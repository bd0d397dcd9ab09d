package io.rattan.sim.faults;

import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.virtual.VirtualWorld;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The liars' clock ({@link Attack#CLOCK_LIE}, docs/security.md, item 7): a liar answers every ping with a pong whose
 * time is {@link #LIE_MILLIS} ahead of the true time (less than a first correction may move a clock, so that bound
 * refuses nothing), and every {@link #EVERY_NANOS} sends every live honest node a {@code JOIN_INFO} naming every live
 * liar, so that each probes them all and hears their time. Each round it looks at every live honest node whose own
 * clock never had a fault: one whose expiry clock is more than 2 S off the true time was steered (rule 3a), counted
 * once until it is back within 2 S.
 */
final class ClockLies {

    static final long EVERY_NANOS = 5_000_000_000L;
    /** An hour ahead: a clock that takes it purges every value with less than an hour to live. */
    static final long LIE_MILLIS = 3_600_000L;
    private static final long BOUND_MILLIS = 2 * Checker.S_MILLIS;

    private final VirtualWorld world;
    private final List<Integer> liars;
    private final Set<Integer> liarSet;
    private final LiarSender sender;
    private final Set<Integer> steered = new HashSet<>();
    private Checker checker;

    ClockLies(VirtualWorld world, List<Integer> liars, LiarSender sender) {
        this.world = world;
        this.liars = liars;
        this.liarSet = new HashSet<>(liars);
        this.sender = sender;
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    void checker(Checker checker) {
        this.checker = checker;
    }

    /** A liar's answer to a ping: its time, an hour ahead. */
    Pong pong() {
        return new Pong(List.of(), world.scheduler().epochMillis() + LIE_MILLIS);
    }

    private void round() {
        Introductions liarsToHonest = Introductions.of(world, liarSet);
        check(liarsToHonest.others());
        liarsToHonest.send(world, liars, sender);
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    private void check(List<Integer> honest) {
        for (int i : honest) {
            if (checker == null || checker.clockFaulted(i)) {
                continue;
            }
            long error = world.expiryClockErrorMillis(i);
            if (Math.abs(error) <= BOUND_MILLIS) {
                steered.remove(i);
            } else if (steered.add(i)) {
                checker.liarAchieved(Rule.CLOCK_STEERED, "node " + world.contact(i).id().shortHex()
                        + "'s expiry clock is " + error + " ms off the true time");
            }
        }
    }
}
