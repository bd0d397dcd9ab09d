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
     * Either way the liar also acknowledges a copy to the put's gateway in its own name (an unowned put's). Succeeds
     * when the gateway counts an answer it cannot attribute (rule 1a, then rule 1). Defended: a gateway counts only
     * replicas' own acks, one per node (and host), so L liars leave a put at least W − L copies; the checker
     * counts, and does not assert, puts that liars' acks took below W.
     */
    FAKE_ACK("fake-ack", Rule.W_COPIES_AT_ACK, PlantedBug.PUT_ACKS_UNATTRIBUTED),
    /**
     * A get routed through the liar is answered OK with no value (rule 1). Defended in part: a gateway takes an empty
     * answer only from the key's root in its view, a value only from one of its k replicas, and asks the closest node
     * it knows otherwise ({@code GetAnswerCheck}); a liar that is the key's root still answers empty.
     */
    FAKE_EMPTY("fake-empty", Rule.ACKED_PUT_READABLE, PlantedBug.GET_ANSWERS_UNCHECKED, false),
    /**
     * A get routed through the liar is answered OK with a value nobody put (rule 2). Not defended where it matters: a
     * liar that is no replica of the key is set aside as for {@link #FAKE_EMPTY}, but a replica's value cannot be told
     * from a forged one (unowned values are not signed by their putter).
     */
    FORGED_VALUE("forged-value", Rule.NEVER_PUT, null),
    /**
     * A put routed through the liar is raced: the liar first puts the same bytes under the same key with a binding of
     * its own, as a client of its own node, then passes the put on. Succeeds when the first binding stored owns the
     * bytes' remove: the putter's remove is refused (rule 2b). Defended: the same bytes under two bindings are two
     * records, each removed by its own secret (protocol 16); the liar's own copy outlives the putter's remove, which
     * the checker excuses ({@link Excuse#LIARS_OWN_COPY}).
     */
    BINDING_RACE("binding-race", Rule.REMOVE_REFUSED_TO_PUTTER, PlantedBug.BINDINGS_FIRST_COME),
    /**
     * Every 30 s the liar watches the workload's keys at every node (their names are no secret) and asks every node,
     * by a repair digest that claims the values it saw live and by a quorum get's replica read of each key, for their
     * tombstones, which carry what their removes sent; and it reads the removes routed through it. Succeeds when that
     * is the putter's secret itself. Defended: clients send each value's remove proof, never the secret (so the
     * harvest gets proofs, each opening only a value already removed, or its same bytes put again with the same
     * secret); and a tombstone goes back only to a replica of its
     * key, or the next, that the holder's view can place (docs/testing.md, "Liars"), which keeps them near the key.
     */
    SECRET_HARVEST("secret-harvest", Rule.SECRET_TO_LIAR, PlantedBug.RAW_SECRETS),
    /**
     * A remove routed through the liar is answered OK and dropped; a replica's remove asked of it is answered OK and
     * not written. Either way the liar also acknowledges a tombstone to the remove's gateway in its own name. Succeeds
     * when the gateway counts an answer it cannot attribute: no tombstone anywhere (rule 2a). Defended: a gateway
     * counts only replicas' own tombstone acks, one per node (and host); the checker counts, and does not assert,
     * removes that liars' acks took to W.
     */
    FAKE_REMOVE("fake-remove", Rule.REMOVE_ACK_NO_TOMBSTONE, PlantedBug.REMOVE_ACKS_UNATTRIBUTED),
    /**
     * The liar sends every live node range digests naming the whole ring, 200 a second each, to fill its store
     * thread with scans so that puts and gets fail "store busy" or time out (rule 4). Runs the nodes' stores with a
     * queue ({@code VirtualWorld#queueStoreWork}). Defended: a node reads nothing for a peer outside its leaf set,
     * only the shared arc for a member, and at most two scans a member at once.
     */
    REPAIR_FLOOD("repair-flood", Rule.LIVENESS, PlantedBug.REPAIR_SCANS_UNBOUNDED),
    /**
     * Every 5 s the liar sends four honest nodes a put of made-up bytes straight on the peer port, in another honest
     * node's name, unsigned or signed with its own key ({@link OriginForgery}). Succeeds when a root stores one: the
     * named node's share pays for it (rule 2d). Defended: a root takes a put only with its origin's signature
     * (protocol 17).
     */
    ORIGIN_FORGERY("forged-origin", Rule.FORGED_ORIGIN_STORED, PlantedBug.ORIGINS_UNCHECKED),
    /**
     * Every second the liar sends one honest node 32 puts of 1 KiB under its id, straight on the peer port in the
     * liar's own name ({@link PeerFlood}), twice what the run's roots take from one origin. Succeeds when a root holds
     * more of one liar's live puts than an origin's share (rule 2e). Defended: a key's root counts each origin's puts
     * against a rate and a share, as a gateway counts its clients' ({@code OriginMeter}).
     */
    PEER_FLOOD("peer-flood", Rule.ORIGIN_OVER_SHARE, PlantedBug.ORIGINS_UNMETERED),
    /**
     * The liars and twice as many further ids (nodes that run the node code honestly) listen on one IPv6 /64, and
     * every 5 s each liar names them all to every other node, which probes them ({@link SlotCapture}). Succeeds when
     * a node's routing table holds more of that host's ids than the default per-host bound (rule 9). Defended: at most
     * that many ids of one host in the whole table (and the leaf set), the node's own host excepted.
     */
    SLOT_CAPTURE("slot-capture", Rule.SLOTS_CAPTURED, PlantedBug.IDS_PER_HOST_UNBOUNDED),
    /**
     * The liar answers every ping with a time an hour ahead, and every 5 s names every liar to every honest node, which
     * probes them ({@link ClockLies}). Succeeds when an honest node's expiry clock moves more than 2 S (rule 3a).
     * Defended: hosts that tell a time must be most of the last nine heard (a host that tells none counts as
     * agreeing), and then five decide, fewer only where they agree or are all there are ({@code ClockVotes}).
     */
    CLOCK_LIE("clock-lie", Rule.CLOCK_STEERED, PlantedBug.CLOCK_THREE_HOSTS);

    private final String flag;
    private final Rule caughtBy;
    private final PlantedBug defenceOff;
    private final boolean defenceComplete;

    Attack(String flag, Rule caughtBy, PlantedBug defenceOff) {
        this(flag, caughtBy, defenceOff, defenceOff != null);
    }

    Attack(String flag, Rule caughtBy, PlantedBug defenceOff, boolean defenceComplete) {
        this.flag = flag;
        this.caughtBy = caughtBy;
        this.defenceOff = defenceOff;
        this.defenceComplete = defenceComplete;
    }

    /** The planted bug that turns this attack's defence off, or null while it has none (it succeeds today). */
    public PlantedBug defenceOff() {
        return defenceOff;
    }

    /**
     * Whether the defence stops the attack where no fault is in force; false for one that only makes it far rarer (a
     * liar among the key's replicas may still succeed: docs/security.md).
     */
    public boolean defenceComplete() {
        return defenceComplete;
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
