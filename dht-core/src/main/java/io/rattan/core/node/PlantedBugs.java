package io.rattan.core.node;

/**
 * Deliberate bugs, each off by default, that the fault simulator plants to prove its checker can fail (issue 16):
 * a checker that passes on code known to be wrong proves nothing. Test-only: nothing in the real node sets them.
 *
 * @param putAckBelowQuorum  the root answers a put OK with one copy fewer than W (at least one)
 * @param tombstoneRuleOff   where a live copy meets its tombstone the value wins: a replica answering a repair
 *                           digest asks for a value it holds as a tombstone (instead of sending the tombstone
 *                           back), and writes whatever it is sent, so the value overwrites its tombstone
 * @param extraSecondOnCopy  a record copied to another replica carries one second more than it has left
 */
public record PlantedBugs(boolean putAckBelowQuorum, boolean tombstoneRuleOff, boolean extraSecondOnCopy) {
    /** No bug: how every node runs. */
    public static final PlantedBugs NONE = new PlantedBugs(false, false, false);
}
