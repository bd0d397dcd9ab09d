package io.rattan.sim.experiment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * When each churn event of a run happens, drawn from the run's seed before the run starts: the number of joins fixes
 * how many nodes the world must have room for (hosts, slow periods) before it is built. Each kind is a Poisson
 * process on its own stream, so changing one rate does not move the other kinds' events.
 *
 * @param events in time order; times are from the start of the get phase
 */
record ChurnPlan(List<Event> events) {

    enum Kind { JOIN, LEAVE, CRASH }

    record Event(long atNanos, Kind kind) {
    }

    private static final long MINUTE = 60_000_000_000L;
    // Keeps the plan's streams apart from the workload's and the network's, which also start from the seed.
    private static final long SALT = 0x6A09E667F3BCC909L;

    ChurnPlan {
        events = List.copyOf(events);
    }

    /** The events of {@code churn} over [0, {@code durationNanos}). */
    static ChurnPlan draw(Churn churn, long durationNanos, long seed) {
        SplittableRandom root = new SplittableRandom(seed ^ SALT);
        List<Event> events = new ArrayList<>();
        poisson(events, Kind.JOIN, churn.joinsPerMinute(), durationNanos, root.split());
        poisson(events, Kind.LEAVE, churn.leavesPerMinute(), durationNanos, root.split());
        poisson(events, Kind.CRASH, churn.crashesPerMinute(), durationNanos, root.split());
        // Stable: events at the same nanosecond keep the order join, leave, crash.
        events.sort(Comparator.comparingLong(Event::atNanos));
        return new ChurnPlan(events);
    }

    private static void poisson(List<Event> events, Kind kind, double perMinute, long durationNanos,
                                SplittableRandom random) {
        if (perMinute == 0) {
            return;
        }
        double meanGap = MINUTE / perMinute;
        double t = 0;
        while (true) {
            t += -Math.log(1 - random.nextDouble()) * meanGap;
            if (t >= durationNanos) {
                return;
            }
            events.add(new Event((long) t, kind));
        }
    }

    /** How many nodes the plan adds. */
    int joins() {
        return (int) events.stream().filter(e -> e.kind() == Kind.JOIN).count();
    }
}
