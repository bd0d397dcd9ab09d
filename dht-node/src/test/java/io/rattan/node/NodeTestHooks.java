package io.rattan.node;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Message;
import java.util.concurrent.CompletableFuture;

/**
 * The test hooks of {@link RattanNode}, for tests outside its package. The hooks themselves are package-private in
 * the node, so the product jar does not publish them as API; this class lives in the test sources only.
 */
public final class NodeTestHooks {

    private NodeTestHooks() {
    }

    /**
     * Sends {@code body} with request id {@code requestId} to the peer at {@code to} as {@code node}, over its own
     * verified peer transport: what a misbehaving member of the overlay can send ({@link RattanNode#sendAsThisNode}).
     */
    public static CompletableFuture<Void> sendAsThisNode(RattanNode node, Address to, long requestId, Message body) {
        return node.sendAsThisNode(to, requestId, body);
    }

    /**
     * Makes {@code node}'s own store lose the record under {@code (key, valueHash)}, as a lost write or an old disk
     * would ({@link RattanNode#loseRecord}); completes with whether there was a record to lose.
     */
    public static CompletableFuture<Boolean> loseRecord(RattanNode node, Id key, Bytes valueHash) {
        return node.loseRecord(key, valueHash);
    }
}
