package io.rattan.client;

import io.rattan.api.Id;

/**
 * A watch of a key ({@link RattanClient#watch}): its listener hears the key's values, then every change, until
 * {@link #close()}, the client's close, or an end the listener hears of ({@link WatchListener#onEnded}). Thread-safe.
 */
public final class Watch implements AutoCloseable {

    private final WatchStream stream;

    Watch(WatchStream stream) {
        this.stream = stream;
    }

    /** The key watched. */
    public Id key() {
        return stream.key();
    }

    /**
     * The gateway ("host:port") the watch is registered through now, or null while it is between gateways or
     * ended; for diagnostics and tests.
     */
    public String gateway() {
        return stream.gatewayAddress();
    }

    /** Whether the watch has ended: closed, or ended for a reason its listener heard. */
    public boolean isEnded() {
        return stream.isEnded();
    }

    /** Ends the watch: tells its gateway, and no call of its listener starts once this returns. Idempotent. */
    @Override
    public void close() {
        stream.close();
    }
}
