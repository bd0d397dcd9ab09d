package io.rattan.sim.faults;

/** Why an acknowledged put missing from a get was excused (docs/testing.md, rule 1): counted, each by its reason. */
public enum Excuse {
    /** A partition that separated the key's replicas, or them from the get's gateway, was in force during the get. */
    PARTITION("partition"),
    /** Such a partition healed less than {@link Checker#HEAL_MOMENT_NANOS} before the get started. */
    HEAL_SETTLING("heal-settling"),
    /** The get raced the put's copies to the node that answered it ({@link Checker#inFlightNanos()}). */
    COPY_IN_FLIGHT("copy-in-flight"),
    /**
     * A liar that keeps no copy it is sent (it fakes acks) answered the get as a replica: a gateway cannot tell its
     * empty answer from a true one (docs/security.md).
     */
    LIAR_ANSWERED("liar-answered"),
    /**
     * Not a miss: a removed value's bytes came back from a liar's own put of them, under a binding of its own (a
     * binding race), a put of the same bytes by someone else, not the removed value: every node the get read them
     * from held them under another binding only ({@code GetDiagnosis.servedFromSlot}). Counted here, printed with
     * the removed values returned.
     */
    LIARS_OWN_COPY("liars-own-copy"),
    /**
     * Not a miss: a removed value came back read from liars' copies of it alone, or while it lived on liars alone,
     * which keep no tombstone they are sent (a liar's answer, as a forged value is). Counted here, printed with the
     * removed values returned.
     */
    LIAR_KEPT_REMOVED("liar-kept-removed"),
    /**
     * Not a late copy: a value's bytes came back past its expiry from a liar's own put of them under a binding of its
     * own (a binding race, which may come later, from a put sent again), which expires with that put. Counted here,
     * printed with the values served past expiry.
     */
    LIARS_OWN_COPY_PAST_EXPIRY("liars-own-copy-past-expiry");

    private final String label;

    Excuse(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Counts by reason as the summary prints them: {@code partition N, heal-settling N, copy-in-flight N}. */
    static String line(java.util.Map<Excuse, Long> counts) {
        StringBuilder b = new StringBuilder();
        // Liars' answers are named only in runs that have them, so that other runs' summaries read as before; a liar's
        // own copy of removed bytes is a get's answer, not a miss (the summary names it with the removed values).
        counts.forEach((e, n) -> {
            if (e != LIARS_OWN_COPY && e != LIAR_KEPT_REMOVED && e != LIARS_OWN_COPY_PAST_EXPIRY
                    && (e != LIAR_ANSWERED || n > 0)) {
                b.append(b.length() == 0 ? "" : ", ").append(e.label()).append(' ').append(n);
            }
        });
        return b.toString();
    }
}
