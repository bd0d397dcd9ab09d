package io.rattan.core.node;

import io.rattan.core.msg.Envelope;

/** What to do when a request is answered or its timeout passes; exactly one of the two is called. */
interface ReplyHandler {

    void onReply(Envelope reply);

    void onTimeout();
}
