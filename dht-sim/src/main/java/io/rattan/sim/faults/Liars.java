package io.rattan.sim.faults;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Which nodes of a fault run lie, and how: a fraction of the world's nodes (at least one when the fraction is above
 * 0), each running every attack named.
 *
 * @param fraction of the nodes, 0 to 0.5
 * @param attacks  what each liar does (empty only without liars)
 */
public record Liars(double fraction, Set<Attack> attacks) {

    /** No liar: every run but those asked for. */
    public static final Liars NONE = new Liars(0, EnumSet.noneOf(Attack.class));

    public Liars {
        if (!(fraction >= 0 && fraction <= 0.5)) {
            throw new IllegalArgumentException("--liars must be 0..0.5 (a fraction of the nodes), got " + fraction);
        }
        if (fraction > 0 && attacks.isEmpty()) {
            throw new IllegalArgumentException("--liars needs --attacks: " + Attack.flags() + ", or all");
        }
        if (fraction == 0 && !attacks.isEmpty()) {
            throw new IllegalArgumentException("--attacks needs --liars F (a fraction of the nodes above 0)");
        }
        attacks = Collections.unmodifiableSet(attacks.isEmpty() ? EnumSet.noneOf(Attack.class)
                : EnumSet.copyOf(attacks));
    }

    /** Whether any node lies. */
    public boolean any() {
        return fraction > 0;
    }

    /** How many of {@code nodes} lie: the fraction rounded, at least one. */
    public int count(int nodes) {
        return any() ? Math.max(1, (int) Math.round(fraction * nodes)) : 0;
    }

    /**
     * The indexes of {@code n} nodes in the order a run draws its liars from (the first {@link #count} lie): shuffled
     * with {@code random}, one draw.
     */
    static List<Integer> drawOrder(int n, SplittableRandom random) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        Collections.shuffle(all, new Random(random.nextLong()));
        return List.copyOf(all);
    }

    /** As the replay command spells it: empty without liars. */
    public String flags() {
        if (!any()) {
            return "";
        }
        return " --liars " + fraction + " --attacks "
                + attacks.stream().map(Attack::flag).collect(Collectors.joining(","));
    }
}
