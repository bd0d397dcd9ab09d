package io.rattan.core.node;

import io.rattan.core.msg.Envelope;
import java.util.function.Consumer;

/**
 * What to do when a request is answered, its timeout passes, or it is shed under overload; exactly one of the three is
 * called.
 */
interface ReplyHandler {

    void onReply(Envelope reply);

    void onTimeout();

    /**
     * Whether a replica's {@code PutAck} or {@code RemoveAck} may answer this request: only a gateway's attributed put
     * or remove takes them.
     */
    default boolean takesAcks() {
        return false;
    }

    /**
     * The request was shed to make room for newer ones ({@link PendingRequests}): no answer will be taken for it. By
     * default the same as a timeout, which is what it costs the caller; a client's request says so instead.
     */
    default void onShed() {
        onTimeout();
    }

    /** A handler made of its two halves, so that a request reads as one call rather than an anonymous class. */
    static ReplyHandler of(Consumer<Envelope> onReply, Runnable onTimeout) {
        return new ReplyHandler() {
            @Override
            public void onReply(Envelope reply) {
                onReply.accept(reply);
            }

            @Override
            public void onTimeout() {
                onTimeout.run();
            }
        };
    }

    /** As {@link #of(Consumer, Runnable)}, with its own answer to being shed. */
    static ReplyHandler of(Consumer<Envelope> onReply, Runnable onTimeout, Runnable onShed) {
        return new ReplyHandler() {
            @Override
            public void onReply(Envelope reply) {
                onReply.accept(reply);
            }

            @Override
            public void onTimeout() {
                onTimeout.run();
            }

            @Override
            public void onShed() {
                onShed.run();
            }
        };
    }
}
