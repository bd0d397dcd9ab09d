package io.rattan.sim.faults;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a liar node does to the requests that pass through it (issue 39; {@link LiarNodes}), each with the rule that
 * catches it when it succeeds. A liar that answers a routed request in a replica's place acknowledges the hop, so that
 * the node before it does not route around it, answers the gateway and sends nothing on.
 */
public enum Attack {
    /**
     * A put routed through the liar is answered OK and dropped; a copy asked of it is acknowledged and not stored.
     * Succeeds when the gateway counts an answer it cannot attribute (rule 1a, then rule 1).
     */
    FAKE_ACK("fake-ack", Rule.W_COPIES_AT_ACK),
    /** A get routed through the liar is answered OK with no value (rule 1). */
    FAKE_EMPTY("fake-empty", Rule.ACKED_PUT_READABLE),
    /** A get routed through the liar is answered OK with a value nobody put (rule 2). */
    FORGED_VALUE("forged-value", Rule.NEVER_PUT),
    /**
     * A put routed through the liar is raced: the liar first puts the same bytes under the same key with a binding of
     * its own, as a client of its own node, then passes the put on. The first binding stored owns the remove, so the
     * putter's remove is refused (rule 2b).
     */
    BINDING_RACE("binding-race", Rule.REMOVE_REFUSED_TO_PUTTER),
    /** A remove routed through the liar is answered OK and dropped: no tombstone anywhere (rule 2a). */
    FAKE_REMOVE("fake-remove", Rule.REMOVE_ACK_NO_TOMBSTONE);

    private final String flag;
    private final Rule caughtBy;

    Attack(String flag, Rule caughtBy) {
        this.flag = flag;
        this.caughtBy = caughtBy;
    }

    /** As the command line spells it. */
    public String flag() {
        return flag;
    }

    /** The rule a success of this attack breaks. */
    public Rule caughtBy() {
        return caughtBy;
    }

    /**
     * The attacks a comma-separated list names: flags, or {@code all}.
     *
     * @throws IllegalArgumentException naming the flags there are, for a name that is none of them
     */
    public static Set<Attack> parse(String list) {
        EnumSet<Attack> attacks = EnumSet.noneOf(Attack.class);
        for (String name : list.split(",")) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("all")) {
                attacks.addAll(EnumSet.allOf(Attack.class));
                continue;
            }
            Attack found = Arrays.stream(values()).filter(a -> a.flag.equals(n)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown attack '" + name.trim()
                            + "': the attacks are " + flags() + ", or all"));
            attacks.add(found);
        }
        return attacks;
    }

    /** Every attack's flag, comma-separated. */
    public static String flags() {
        return Arrays.stream(values()).map(Attack::flag).collect(Collectors.joining(", "));
    }
}
