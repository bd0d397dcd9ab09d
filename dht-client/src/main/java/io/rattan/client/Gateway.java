package io.rattan.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.handler.ssl.SslContext;
import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A gateway the client sends requests to, with its one connection, opened on first use and reopened after it
 * closes. Thread-safe.
 *
 * <p>A gateway that refused a connection, or whose connection was lost, is <em>suspended</em>: calls choose other
 * gateways while any is available ({@link ClientRuntime#chooseGateway}). A suspension does not simply run out: once
 * it is due the client probes the gateway by opening a connection, in the background, and only a connection that
 * opens ends it; one that fails suspends the gateway again, for twice as long each time (from the backoff cap, at
 * most {@value #DOUBLINGS_MAX} doublings, jittered so that gateways that died together are not probed together). A
 * lost connection is probed as soon as a call looks at the gateway, so one that merely closed a connection is back
 * within a round trip. A suspension that simply ran out would make gateways that died together look usable again at
 * the same instant, and a call could spend every retry on them (docs/history.md, "A client gateway's suspension ends
 * with a probe").
 */
final class Gateway {

    /** Most doublings of the suspension: from the default 1 s cap, 32 s between probes of a gateway that is down. */
    static final int DOUBLINGS_MAX = 5;

    private final Address address;
    private final Bootstrap bootstrap;
    private final MessageCodec codec;
    private final long suspensionNanos;
    // TLS on every connection, or null for none.
    private final SslContext tls;

    private Connection connection; // guarded by this
    private boolean closed; // guarded by this
    private int failures; // guarded by this: connections that failed since the last that opened
    private long probeAtNanos; // guarded by this: when a suspended gateway is next probed
    private boolean probing; // guarded by this: a probe's connection is opening
    private volatile boolean suspended;

    Gateway(Address address, Bootstrap bootstrap, MessageCodec codec, long suspensionNanos, SslContext tls) {
        this.address = address;
        this.tls = tls;
        this.bootstrap = bootstrap;
        this.codec = codec;
        this.suspensionNanos = suspensionNanos;
    }

    Address address() {
        return address;
    }

    /** The open connection, or a new one when there is none or it closed (or failed to open). */
    synchronized Connection connection() {
        if (closed) {
            throw new IllegalStateException("gateway " + address + " is closed");
        }
        if (connection == null || connection.isClosed()) {
            connection = Connection.open(this, bootstrap, codec, tls);
        }
        return connection;
    }

    /** The current connection, open or not, or null; for tests and diagnostics. */
    synchronized Connection currentConnection() {
        return connection;
    }

    /** A connection opened: the gateway is usable again. */
    void connected() {
        synchronized (this) {
            failures = 0;
            probing = false;
        }
        suspended = false;
    }

    /** A connection failed to open: suspended until a probe, later each time it fails again. */
    void connectFailed() {
        synchronized (this) {
            failures++;
            probing = false;
            long period = suspensionNanos << Math.min(failures - 1, DOUBLINGS_MAX);
            // Jitter in [period / 2, period]: gateways killed together are not probed in step.
            probeAtNanos = System.nanoTime() + period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
        }
        suspended = true;
    }

    /**
     * The open connection {@code c} closed, not by the client's close: suspended, with its probe due at once (the
     * next call that looks at the gateway starts it). A gateway that is up accepts the probe's connection within a
     * round trip; a killed one refuses it and stays suspended.
     */
    void connectionLost(Connection c) {
        synchronized (this) {
            if (closed || c != connection) {
                return;
            }
            probeAtNanos = System.nanoTime();
        }
        suspended = true;
    }

    /** True while no connection opened since the last failure: calls prefer other gateways. */
    boolean isSuspended() {
        return suspended;
    }

    /**
     * Whether calls may choose the gateway now: true unless suspended. A suspended gateway whose probe is due is
     * probed (in the background) and stays suspended until the probe's connection opens.
     */
    boolean isAvailable(long nowNanos) {
        if (!suspended) {
            return true;
        }
        probeIfDue(nowNanos);
        return false;
    }

    private void probeIfDue(long nowNanos) {
        synchronized (this) {
            if (closed || !suspended || probing || nowNanos - probeAtNanos < 0) {
                return;
            }
            probing = true;
            // A connection still opening is the probe: its outcome ends or renews the suspension.
            Connection c = connection();
            if (c.isConnected()) {
                // Opened already (its outcome reported before a late failure of an older connection): usable.
                connected();
            }
        }
    }

    /** Closes the connection for good; attempts pending on it fail. */
    synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.close();
        }
    }
}
