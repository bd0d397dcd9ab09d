package io.rattan.client;

import io.netty.bootstrap.Bootstrap;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.net.Address;

/**
 * A gateway the client sends requests to, with its one connection, opened on first use and reopened after it
 * closes. A gateway that refused a connection is suspended for a while, so that requests prefer the others.
 * Thread-safe.
 */
final class Gateway {

    private final Address address;
    private final Bootstrap bootstrap;
    private final MessageCodec codec;
    private final long suspensionNanos;

    private Connection connection; // guarded by this
    private boolean closed; // guarded by this
    private volatile long suspendedUntilNanos;
    private volatile boolean suspended;

    Gateway(Address address, Bootstrap bootstrap, MessageCodec codec, long suspensionNanos) {
        this.address = address;
        this.bootstrap = bootstrap;
        this.codec = codec;
        this.suspensionNanos = suspensionNanos;
    }

    Address address() {
        return address;
    }

    /** The open connection, or a new one when there is none or it closed. */
    synchronized Connection connection() {
        if (closed) {
            throw new IllegalStateException("gateway " + address + " is closed");
        }
        if (connection == null || connection.isClosed()) {
            connection = Connection.open(this, bootstrap, codec);
        }
        return connection;
    }

    /** The current connection, open or not, or null; for tests and diagnostics. */
    synchronized Connection currentConnection() {
        return connection;
    }

    /** Marks the gateway as refusing connections for a while. */
    void suspend() {
        suspendedUntilNanos = System.nanoTime() + suspensionNanos;
        suspended = true;
    }

    /** Clears a suspension: the gateway accepted a connection. */
    void resume() {
        suspended = false;
    }

    /** True while a recent connection failure says to prefer other gateways. */
    boolean isSuspended(long nowNanos) {
        return suspended && nowNanos - suspendedUntilNanos < 0;
    }

    /** Closes the connection for good; attempts pending on it fail. */
    synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.close();
        }
    }
}
