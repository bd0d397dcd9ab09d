package io.rattan.sim.experiment;

/**
 * Churn during the get phase of {@link OpenDhtTable}: joins of brand-new nodes, graceful leaves and crashes, each a
 * Poisson process at its rate in events per minute of virtual time across the whole overlay. All zero is off.
 *
 * @param joinsPerMinute   new nodes joining through the protocol
 * @param leavesPerMinute  nodes handing their records off and going dark
 * @param crashesPerMinute nodes going dark at once
 */
public record Churn(double joinsPerMinute, double leavesPerMinute, double crashesPerMinute) {

    /** No churn. */
    public static final Churn NONE = new Churn(0, 0, 0);

    /**
     * The highest rate accepted, per kind: beyond it a run would mostly simulate joins, and the world grows by a
     * node per join.
     */
    public static final double MAX_PER_MINUTE = 1000;

    public Churn {
        check("joins", joinsPerMinute);
        check("leaves", leavesPerMinute);
        check("crashes", crashesPerMinute);
    }

    private static void check(String what, double rate) {
        if (!(rate >= 0 && rate <= MAX_PER_MINUTE)) {
            throw new IllegalArgumentException(what + " per minute must be between 0 and " + (int) MAX_PER_MINUTE
                    + ", got " + rate);
        }
    }

    /**
     * Parses {@code JOINS:LEAVES:CRASHES}, three non-negative decimal rates per minute, such as {@code 2:1:1} or
     * {@code 0.5:0:0}.
     *
     * @throws IllegalArgumentException with a message fit for the user when the text is not of that shape or a
     *                                  rate is out of range
     */
    public static Churn parse(String text) {
        String[] parts = text.trim().split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("expected JOINS:LEAVES:CRASHES (three rates per minute, e.g. 2:1:1), "
                    + "got '" + text + "'");
        }
        double[] rates = new double[3];
        String[] names = {"joins", "leaves", "crashes"};
        for (int i = 0; i < 3; i++) {
            try {
                rates[i] = Double.parseDouble(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(names[i] + " per minute is not a number: '" + parts[i]
                        + "' in '" + text + "'");
            }
        }
        return new Churn(rates[0], rates[1], rates[2]);
    }

    /** Whether no churn happens. */
    public boolean isOff() {
        return joinsPerMinute == 0 && leavesPerMinute == 0 && crashesPerMinute == 0;
    }

    /** The {@link #parse} form, e.g. {@code 2:1:0.5}. */
    @Override
    public String toString() {
        return rate(joinsPerMinute) + ":" + rate(leavesPerMinute) + ":" + rate(crashesPerMinute);
    }

    private static String rate(double r) {
        return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
    }

    /**
     * What churn did in a run. A leave or crash is skipped, and counted as such, when it would have left fewer than
     * {@code minServing} serving nodes (alive, joined, not leaving).
     *
     * @param joins          new nodes started
     * @param joined         of those, how many had joined by the end (some may have left or crashed since)
     * @param leaves         graceful leaves started
     * @param crashes        crashes
     * @param skippedLeaves  leaves not made, to keep {@code minServing} nodes
     * @param skippedCrashes crashes not made, for the same reason
     * @param minServing     the floor
     * @param aliveAtEnd     nodes alive when the run ended
     */
    public record Counts(int joins, int joined, int leaves, int crashes, int skippedLeaves, int skippedCrashes,
                         int minServing, int aliveAtEnd) {
    }
}
