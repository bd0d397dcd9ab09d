package io.rattan.core.node;

import io.rattan.api.Cost;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;

/**
 * What a node reports as it works, for metrics. Called on the node's event loop; implementations must be quick and
 * must not call back into the node.
 */
public interface NodeListener {

    NodeListener NONE = new NodeListener() { };

    /**
     * A client request served by this node as gateway finished.
     *
     * @param op           {@link MessageType#CLIENT_PUT}, {@link MessageType#CLIENT_GET} or
     *                     {@link MessageType#CLIENT_REMOVE}
     * @param hops         overlay hops the request took (0 when this node served it)
     */
    default void clientRequestDone(MessageType op, Status status, long latencyNanos, int hops) {
    }

    /**
     * A get this node started as gateway was answered: what the answer reports it cost in band (see {@link Cost}).
     * Called once per copy answered, so a get raced through several nodes reports each copy that came back in time.
     *
     * @param routing how the get was routed
     * @param cost    messages and bytes the nodes on its path counted; zero when this node answered it itself
     */
    default void clientGetCost(RoutingMode routing, Cost cost) {
    }

    /**
     * This node forwarded a get to {@code next}, chosen by {@code mode}'s policy; {@code srttNanos} is what it had
     * measured of that neighbour (negative: never measured).
     */
    default void getForwarded(RoutingMode mode, Contact next, long srttNanos) {
    }

    /** A get routed by {@code mode} reached this node from a peer (as a hop or as its destination). */
    default void getReceived(RoutingMode mode) {
    }

    /**
     * A quorum get this node served (as the replica that read the others) was answered: {@code partial} when fewer
     * than R replicas answered; {@code recordsRepaired} records were sent to replicas that lacked them (read repair).
     */
    default void quorumReadDone(boolean partial, int recordsRepaired) {
    }

    /**
     * This node served a get of consistency one as a replica: from its own store alone, or ({@code secondReplica})
     * merged with the next replica's, because its store was in a fault ({@code storeFault}) or its view changed moments
     * ago. A second read is counted by {@link #quorumReadDone} as well.
     */
    default void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
    }

    /**
     * A member answered this node again after a cut: every request this node sent it for a second or more after the
     * first went unanswered was lost, while it may have kept speaking (a one-way cut). The keys it replicates with
     * this node read more replicas for the settling window, as after a change of the leaf set.
     */
    default void cutEnded() {
    }

    /**
     * This node gave up waiting for a sync to make its writes durable (the disk did not return within half the request
     * timeout) and answered as for an I/O fault: {@code ownCopy} for the root's own copy of a put (the put fails with
     * {@link Status#IO_ERROR} unless other replicas make W), else for copies a peer sent (answered
     * {@code ERROR_REPLY(IO_ERROR)}).
     */
    default void durableWaitGaveUp(boolean ownCopy) {
    }

    /**
     * This node declared a peer dead: its address refused connections while it was suspected ({@code refused}), or
     * its probe went unanswered.
     */
    default void peerDeclaredDead(boolean refused) {
    }

    /**
     * A range digest was refused: its sender is no leaf-set member (answered with empty sums, nothing read), or
     * ({@code busy}) already has as many range scans running here as it may (not answered).
     */
    default void repairRequestRefused(boolean busy) {
    }

    /**
     * The answer to a digest did not send back {@code n} tombstones (which carry the remove's secret) the asker lacks,
     * or a replica read was refused for one: the asker is no replica of their keys in this node's view.
     */
    default void repairTombstonesWithheld(int n) {
    }

    /** A message left this node. */
    default void messageSent(MessageType type) {
    }

    /**
     * This node, as a key's root, refused a put by its origin ({@code OriginMeter}): {@code FORBIDDEN} (the origin's
     * signature did not hold), {@code RATE_LIMITED} or {@code QUOTA_EXCEEDED} (the origin's rate or share was spent).
     */
    default void originPutRefused(Status status) {
    }

    /**
     * This gateway set aside a get's answer from a node that its view says is no replica of the key (an empty answer:
     * not its root), and asked the closest node it knows instead ({@code GetAnswerCheck}).
     */
    default void getAnswerSetAside() {
    }

    /** A {@code PutAck} reached this gateway that names another record than its put sent, or no sender. */
    default void putAckRefused() {
    }

    /** A {@code RemoveAck} reached this gateway that names another value than its remove, or no sender. */
    default void removeAckRefused() {
    }

    /**
     * An outstanding request was shed, the oldest, to make room for a new one: the node's table of requests in
     * flight was full (overload).
     */
    default void requestShed() {
    }
}
