package io.rattan.core.node;

import io.rattan.core.msg.Envelope;
import java.util.function.Consumer;

/** What to do when a request is answered or its timeout passes; exactly one of the two is called. */
interface ReplyHandler {

    void onReply(Envelope reply);

    void onTimeout();

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

    /** A handler for requests whose answer changes nothing and whose loss only needs {@code onTimeout}. */
    static ReplyHandler onTimeoutOnly(Runnable onTimeout) {
        return of(reply -> { }, onTimeout);
    }
}
