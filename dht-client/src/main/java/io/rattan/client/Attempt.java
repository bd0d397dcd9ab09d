package io.rattan.client;

import io.rattan.core.msg.Message;

/**
 * One try of a {@link Call} at one gateway, under its own request id. Exactly one of reply, failure and abandonment
 * takes effect: each first removes the attempt from its connection's pending table, and only the remover acts.
 */
final class Attempt {

    private final Call<?> call;
    private final long requestId;
    private final Gateway gateway;
    private final long startNanos = System.nanoTime();
    private volatile Connection connection;
    // Set when the client closed the attempt's connection for another attempt's silence: this one failed unheard.
    private volatile boolean takenDown;

    Attempt(Call<?> call, long requestId, Gateway gateway) {
        this.call = call;
        this.requestId = requestId;
        this.gateway = gateway;
    }

    /** When the attempt started; a System.nanoTime value. */
    long startNanos() {
        return startNanos;
    }

    long requestId() {
        return requestId;
    }

    Gateway gateway() {
        return gateway;
    }

    /** Remembers the connection the attempt was registered on, so that it can be abandoned. */
    void sentOn(Connection c) {
        this.connection = c;
    }

    /** The connection the attempt was sent on, or null before it was sent. */
    Connection connection() {
        return connection;
    }

    /** Called once the attempt was removed from the pending table with its reply. Any thread. */
    void onReply(Message reply) {
        call.onReply(this, reply);
    }

    /** Called once the attempt was removed from the pending table with a failure. Any thread. */
    void onFailure(RattanException failure) {
        call.onAttemptFailed(this, failure);
    }

    /** Marks the attempt as failed by the client's close of its silent connection, before its own timeout. */
    void takenDown() {
        takenDown = true;
    }

    /** True when the attempt failed only because the client closed its connection for another attempt's silence. */
    boolean wasTakenDown() {
        return takenDown;
    }

    /** Withdraws the attempt from its connection; true when this call removed it (no reply or failure will come). */
    boolean abandon() {
        Connection c = connection;
        return c != null && c.forget(this);
    }
}
