package io.rattan.core.testing;

/**
 * Every fault-injection switch of the node logic in one place: deliberate bugs, each off by default, that the fault
 * simulator plants to prove its checker can fail (a checker that passes on code known to be wrong proves nothing).
 * Only the fault simulator and tests may name this type (an ArchUnit rule holds it); the real node never sets one.
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
