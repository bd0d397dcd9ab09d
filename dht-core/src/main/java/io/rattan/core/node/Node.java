package io.rattan.core.node;

import io.rattan.core.env.NodeEnv;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import java.util.List;
import java.util.function.Consumer;

/**
 * One Rattan node: an event-driven state machine. Every method must be called on the node's event loop
 * (the {@link io.rattan.core.env.Scheduler} in its {@link NodeEnv}).
 */
public final class Node {

    public Node(NodeConfig config, Contact self, NodeEnv env, NodeListener listener) {
        throw new UnsupportedOperationException("being written");
    }

    public Contact self() {
        throw new UnsupportedOperationException();
    }

    /** Starts maintenance and joins through the first bootstrap that answers; no bootstrap: a new overlay. */
    public void start(List<Address> bootstrap) {
        throw new UnsupportedOperationException();
    }

    /** A frame arrived from a peer. */
    public void receive(Envelope envelope) {
        throw new UnsupportedOperationException();
    }

    /**
     * Serves a client request ({@code ClientPut}, {@code ClientGet}, {@code ClientRemove}) with this node as gateway.
     * {@code reply} is called exactly once, on the event loop, with a {@code PutReply}, {@code GetReply},
     * {@code RemoveReply} or {@code ErrorReply}.
     */
    public void handleClient(Message request, Consumer<Message> reply) {
        throw new UnsupportedOperationException();
    }

    /** Graceful leave: hands this node's values to the neighbours that become their replicas, then runs {@code done}. */
    public void leave(Runnable done) {
        throw new UnsupportedOperationException();
    }

    /** Stops all timers; sends nothing. After this the node ignores every input. */
    public void stop() {
        throw new UnsupportedOperationException();
    }

    public boolean isJoined() {
        throw new UnsupportedOperationException();
    }

    public NodeStatus status() {
        throw new UnsupportedOperationException();
    }
}
